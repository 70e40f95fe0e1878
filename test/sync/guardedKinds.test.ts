import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { PUBLIC_DATE_FIELD } from '../../shared/schemas/sync.js';
import { ADMIN } from '../support/service.js';
import { attachedPair, gatedPair, onBothServers, setPublicDate, type GatedPair } from './support.js';

// A Boolean and a record's public date were the writes a push to an odr-desktop remote still
// sent unguarded: read first, then written, so a change made there between that read and the
// write was overwritten without a word. Such a remote now says it guards them too
// (`odr-guarded-writes: value, option, boolean, public_date`), and they go out guarded with the
// base's state, no read first; an older one that names only values and options is read first
// as before (docs/sync.md §5).

const BOOL = SYNTH.field('Boolean');
const TEXT = SYNTH.field('Medium Text');

const flag = (r: OdrRecord) => Number(r.fields.find((x) => x.field_uuid === BOOL)?.selected ?? 0);
const publicOf = (r: OdrRecord) => r._record_metadata._public_date;
const readOf = (rec: string) => `GET /api/v4/dataset/record/${rec}`;
const boolWriteOf = (rec: string) => `POST /api/v4/record/${rec}/${BOOL}/value`;
const PUBLIC_WRITE = 'POST /api/v4/dataset/record/public';

/** The requests of one push (as `METHOD /path`), the conflicts of a record, both sides. */
function sides(p: GatedPair) {
  const user = () => p.local.service.domain.users.firstSuperUser()!;
  return {
    pushed: async () => {
      const from = p.gate.seen.length;
      await p.local.service.sync.engine(p.remoteId, user()).push();
      return p.gate.seen.slice(from);
    },
    conflictsOf: (rec: string) => p.local.service.sync.conflicts().filter((c) => c.record_uuid === rec),
    here: (rec: string) => p.local.admin.record(rec),
    there: (rec: string) => p.remote.client.record(rec),
  };
}

/** `write` went out after a read of `rec` (a server that does not guard it), or with none before it. */
function expectRead(sent: string[], rec: string, write: string, readFirst: boolean) {
  const at = sent.indexOf(write);
  expect(at, `${write} sent`).toBeGreaterThanOrEqual(0);
  if (readFirst) expect(sent.slice(0, at), 'read before the write').toContain(readOf(rec));
  else expect(sent, 'no read of the record').not.toContain(readOf(rec));
}

onBothServers((realServer) => {
  let p!: GatedPair;
  gatedPair(12, realServer, (got) => (p = got));
  const s = () => sides(p);

  it('a Boolean unchanged there since the base is pushed; guarded, with no read first', async () => {
    const rec = SYNTH.record(1);
    const was = flag(await s().here(rec));
    await p.local.admin.setValue(rec, BOOL, 1 - was);
    const sent = await s().pushed();
    expectRead(sent, rec, boolWriteOf(rec), realServer);
    expect(flag(await s().there(rec))).toBe(1 - was);
    expect(s().conflictsOf(rec)).toEqual([]);
  });

  it('a Boolean changed there since the base, put back here: a conflict, the server keeps its value', async () => {
    const rec = SYNTH.record(2);
    const was = flag(await s().here(rec));
    // Set and put back here: the operation writes the base's state, which the server no longer has.
    await p.local.admin.setValue(rec, BOOL, 1 - was);
    await p.local.admin.setValue(rec, BOOL, was);
    await p.remote.client.setValue(rec, BOOL, 1 - was);
    await s().pushed();
    expect(flag(await s().there(rec))).toBe(1 - was);
    expect(s().conflictsOf(rec)).toMatchObject([{ field_uuid: BOOL, theirs: was ? 'no' : 'yes' }]);
    expect(flag(await s().here(rec)), 'ours kept here').toBe(was);
  });

  it('a public date unchanged there since the base is pushed; guarded, with no read first', async () => {
    const rec = SYNTH.record(4);
    await setPublicDate(p.local.admin, rec, '2031-05-06 07:08:09');
    const sent = await s().pushed();
    expectRead(sent, rec, PUBLIC_WRITE, realServer);
    expect(publicOf(await s().there(rec))).toBe('2031-05-06 07:08:09');
    expect(s().conflictsOf(rec)).toEqual([]);
  });

  it('a public date changed there since the base: a conflict, the server keeps its date', async () => {
    const rec = SYNTH.record(5);
    await setPublicDate(p.remote.client, rec, '2032-01-01 00:00:00');
    await setPublicDate(p.local.admin, rec, '2033-01-01 00:00:00');
    await s().pushed();
    expect(publicOf(await s().there(rec))).toBe('2032-01-01 00:00:00');
    expect(s().conflictsOf(rec)).toMatchObject([
      { field_uuid: PUBLIC_DATE_FIELD, mine: '2033-01-01 00:00:00', theirs: '2032-01-01 00:00:00' },
    ]);
    expect(publicOf(await s().here(rec)), 'ours kept here').toBe('2033-01-01 00:00:00');
  });

  // Only a server that guards the write can refuse it: a real ODR server has no conditional write.
  if (realServer) return;

  it('a Boolean changed there while its write was on its way: a conflict, never overwritten', async () => {
    const rec = SYNTH.record(7);
    const was = flag(await s().here(rec));
    await p.local.admin.setValue(rec, BOOL, 1 - was);
    await p.local.admin.setValue(rec, BOOL, was);
    const hold = p.gate.hold((method, path) => `${method} ${path}` === boolWriteOf(rec));
    const push = s().pushed();
    await hold.reached;
    await p.remote.client.setValue(rec, BOOL, 1 - was);
    hold.release();
    await push;
    expect(flag(await s().there(rec))).toBe(1 - was);
    expect(s().conflictsOf(rec)).toMatchObject([{ field_uuid: BOOL, theirs: was ? 'no' : 'yes' }]);
  });

  it('a public date changed there while its write was on its way: a conflict, never overwritten', async () => {
    const rec = SYNTH.record(8);
    await setPublicDate(p.local.admin, rec, '2035-01-01 00:00:00');
    const hold = p.gate.hold((method, path) => `${method} ${path}` === PUBLIC_WRITE);
    const push = s().pushed();
    await hold.reached;
    await setPublicDate(p.remote.client, rec, '2036-01-01 00:00:00');
    hold.release();
    await push;
    expect(publicOf(await s().there(rec))).toBe('2036-01-01 00:00:00');
    expect(s().conflictsOf(rec)).toMatchObject([
      { field_uuid: PUBLIC_DATE_FIELD, mine: '2035-01-01 00:00:00', theirs: '2036-01-01 00:00:00' },
    ]);
  });
});

describe('an odr-desktop remote that guards only values and options (an older one)', () => {
  let p!: GatedPair;
  attachedPair(12, (got) => (p = got as GatedPair), { gated: true, guards: 'value, option' });

  it('its Boolean and public-date writes are read first; its value writes still go guarded', async () => {
    const [b, d, v] = [SYNTH.record(1), SYNTH.record(4), SYNTH.record(5)];
    const was = flag(await p.local.admin.record(b));
    await p.local.admin.setValue(b, BOOL, 1 - was);
    await p.local.admin.setPublic({
      user_email: ADMIN.email,
      dataset_uuid: SYNTH.dataset,
      record_uuid: d,
      public_date: '2031-05-06 07:08:09',
    });
    await p.local.admin.setValue(v, TEXT, 'mine');
    const sent = await sides(p).pushed();
    expectRead(sent, b, boolWriteOf(b), true);
    expectRead(sent, d, PUBLIC_WRITE, true);
    expectRead(sent, v, `POST /api/v4/record/${v}/${TEXT}/value`, false);
    expect(flag(await p.remote.client.record(b))).toBe(1 - was);
    expect(publicOf(await p.remote.client.record(d))).toBe('2031-05-06 07:08:09');
  });
});
