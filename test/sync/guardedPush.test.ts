import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { TestService } from '../support/service.js';
import { attachedPair, type AttachedPair, type gateProxy, type RemoteProc } from './support.js';

// A push used to read every record from the server before writing it: the conflict check needs
// the server's field as it is now, and a real ODR server has no conditional write. A remote that
// says it guards its writes (an odr-desktop service) now gets the write with the base's value as
// its guard instead, and checks it in its own write transaction; a refusal is read and checked as
// before (docs/sync.md §5). A change made there since the base must never be overwritten, on
// either path: the remote here is a second service process, reached through a proxy that sees
// (and can hold) every request.

const TEXT = SYNTH.field('Medium Text');
const OTHER = SYNTH.field('Long Text');
const MS = SYNTH.field('Multiple Select');
const opt = (k: number) => SYNTH.option('Multiple Select', k);

const valueOf = (r: OdrRecord, f = TEXT) => r.fields.find((x) => x.field_uuid === f)?.value;
const sel = (r: OdrRecord) => (r.fields.find((x) => x.field_uuid === MS)?.values ?? []).map((v) => v.template_radio_option_uuid).sort();
const readOf = (rec: string) => `GET /api/v4/dataset/record/${rec}`;
const valueWriteOf = (rec: string, f = TEXT) => `POST /api/v4/record/${rec}/${f}/value`;
const optionWriteOf = (rec: string, item: string) => `PUT /api/v4/record/${rec}/${MS}/${item}/`;
// Record 10 of the synthetic set has children.
const NOTES = SYNTH.childField(3);

/** One side of a test: a remote, the service here, and the proxy between them. */
function pair(opts: { realServer?: boolean } = {}) {
  const p = {} as AttachedPair & { gate: Awaited<ReturnType<typeof gateProxy>> };
  attachedPair(11, (got) => Object.assign(p, got), { gated: true, ...opts });
  const run = async () => {
    const s = await p.local.service.sync.run(p.remoteId, p.local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
    expect(s.error).toBeUndefined();
    return s;
  };
  /** The requests a push alone makes (a pull after it reads changed records anyway), as `METHOD /path`. */
  const pushed = async () => {
    const from = p.gate.seen.length;
    await p.local.service.sync.engine(p.remoteId, p.local.service.domain.users.firstSuperUser()!).push();
    return p.gate.seen.slice(from);
  };
  const conflictsOf = (rec: string) => p.local.service.sync.conflicts().filter((c) => c.record_uuid === rec);
  return { p, run, pushed, conflictsOf, remote: () => p.remote as RemoteProc, local: () => p.local as TestService };
}

describe('a remote that guards its writes', () => {
  const { p, run, pushed, conflictsOf, remote, local } = pair();

  it('gets the value edit as one guarded write, no read of the record first', async () => {
    const rec = SYNTH.record(1);
    await local().admin.setValue(rec, TEXT, 'mine');
    const sent = await pushed();
    expect(sent).toContain(valueWriteOf(rec));
    expect(sent).not.toContain(readOf(rec));
    expect(valueOf(await remote().client.record(rec))).toBe('mine');
    expect(conflictsOf(rec)).toEqual([]);
  });

  it('changed there since the base: the guard refuses it, the read finds the conflict, the server keeps its value', async () => {
    const rec = SYNTH.record(2);
    await remote().client.setValue(rec, TEXT, 'theirs');
    await local().admin.setValue(rec, TEXT, 'mine');
    const sent = await pushed();
    const write = sent.indexOf(valueWriteOf(rec));
    expect(write, 'the guarded write went first').toBeGreaterThanOrEqual(0);
    expect(sent.slice(write)).toContain(readOf(rec));
    expect(valueOf(await remote().client.record(rec))).toBe('theirs');
    const [c] = conflictsOf(rec);
    expect(c).toMatchObject({ field_uuid: TEXT, mine: 'mine', theirs: 'theirs' });
    expect(valueOf(await local().admin.record(rec)), 'ours kept here').toBe('mine');
  });

  it('changed there while the guarded write was on its way: still a conflict, never overwritten', async () => {
    const rec = SYNTH.record(3);
    await local().admin.setValue(rec, TEXT, 'mine');
    const hold = p.gate.hold((method, path) => `${method} ${path}` === valueWriteOf(rec));
    const pass = run();
    await hold.reached;
    await remote().client.setValue(rec, TEXT, 'theirs meanwhile');
    hold.release();
    await pass;
    expect(valueOf(await remote().client.record(rec))).toBe('theirs meanwhile');
    expect(conflictsOf(rec)).toMatchObject([{ field_uuid: TEXT, mine: 'mine', theirs: 'theirs meanwhile' }]);
  });

  it('another field changed there: no conflict, both changes stand on both sides', async () => {
    const rec = SYNTH.record(4);
    await remote().client.setValue(rec, OTHER, 'their other field');
    await local().admin.setValue(rec, TEXT, 'mine');
    const sent = await pushed();
    expect(sent).not.toContain(readOf(rec));
    await run();
    for (const side of [await remote().client.record(rec), await local().admin.record(rec)]) {
      expect(valueOf(side)).toBe('mine');
      expect(valueOf(side, OTHER)).toBe('their other field');
    }
    expect(conflictsOf(rec)).toEqual([]);
  });

  it('options: two of one field go out guarded; another option selected there meanwhile is no conflict, both stand', async () => {
    const rec = SYNTH.record(5);
    const before = sel(await local().admin.record(rec));
    const [x, y, z] = [1, 2, 3, 4, 5].map(opt).filter((o) => !before.includes(o));
    await local().admin.setOption(rec, MS, x!, true);
    await local().admin.setOption(rec, MS, y!, true);
    let sent = await pushed();
    expect(sent.filter((r) => r.startsWith(`PUT /api/v4/record/${rec}/${MS}/`))).toHaveLength(2);
    expect(sent, 'the second option is guarded by what the first one left').not.toContain(readOf(rec));
    expect(sel(await remote().client.record(rec))).toEqual([...before, x!, y!].sort());

    await remote().client.setOption(rec, MS, z!, true);
    await local().admin.setOption(rec, MS, x!, false);
    sent = await pushed();
    const writes = sent.flatMap((r, i) => (r.startsWith(`PUT /api/v4/record/${rec}/${MS}/${x}/`) ? [i] : []));
    expect(writes, 'refused by the guard, then sent again').toHaveLength(2);
    expect(sent.slice(writes[0], writes[1]), 'after a read checked as one option').toContain(readOf(rec));
    expect(conflictsOf(rec)).toEqual([]);
    await run();
    const want = [...before, y!, z!].sort();
    expect(sel(await remote().client.record(rec))).toEqual(want);
    expect(sel(await local().admin.record(rec))).toEqual(want);
  });

  it('refused, then read: the server already holds ours, so nothing more is written over it', async () => {
    const rec = SYNTH.record(6);
    await remote().client.setValue(rec, TEXT, 'same on both');
    await local().admin.setValue(rec, TEXT, 'same on both');
    const sent = await pushed();
    expect(
      sent.filter((r) => r === valueWriteOf(rec)),
      'only the refused guarded write',
    ).toHaveLength(1);
    expect(sent).toContain(readOf(rec));
    expect(conflictsOf(rec)).toEqual([]);
    expect(valueOf(await remote().client.record(rec))).toBe('same on both');
  });

  it('refused, read and checked: the write after the read is guarded too; a change there meanwhile leaves it for the next pass', async () => {
    const rec = SYNTH.record(7);
    const before = sel(await local().admin.record(rec));
    const [x, z, w] = [1, 2, 3, 4, 5].map(opt).filter((o) => !before.includes(o));
    await remote().client.setOption(rec, MS, z!, true);
    await local().admin.setOption(rec, MS, x!, true);
    let writes = 0;
    // The second write of x: the one after the guard's refusal and the read.
    const hold = p.gate.hold((method, path) => `${method} ${path}`.startsWith(optionWriteOf(rec, x!)) && ++writes === 2);
    const push = pushed();
    await hold.reached;
    await remote().client.setOption(rec, MS, w!, true);
    hold.release();
    await push;
    expect(sel(await remote().client.record(rec)), 'refused by the guard the read gave it').toEqual([...before, z!, w!].sort());
    expect(conflictsOf(rec)).toEqual([]);
    await run();
    const want = [...before, x!, z!, w!].sort();
    expect(sel(await remote().client.record(rec)), 'sent in the next pass').toEqual(want);
    expect(sel(await local().admin.record(rec))).toEqual(want);
  });

  it('a guarded child write refused with 400 is read and checked, not taken for done: the edit is kept', async () => {
    const rec = SYNTH.record(10);
    const child = (await local().admin.record(rec)).records[0]!.record_uuid;
    await local().admin.setValue(child, NOTES, 'mine');
    // The remote answers 400 where a guard no longer fits the field (its type changed there since
    // the base); the proxy gives that answer while the remote's field changes.
    const hold = p.gate.hold((method, path) => `${method} ${path}` === valueWriteOf(child, NOTES));
    const push = pushed();
    await hold.reached;
    await remote().client.setValue(child, NOTES, 'theirs');
    hold.release({ status: 400, message: 'expected_value: not a value of this field' });
    await push;
    const childOf = (r: OdrRecord) => r.records.find((c) => c.record_uuid === child)!;
    expect(valueOf(childOf(await remote().client.record(rec)), NOTES)).toBe('theirs');
    expect(conflictsOf(rec).concat(conflictsOf(child))).toMatchObject([{ field_uuid: NOTES, mine: 'mine', theirs: 'theirs' }]);
    expect(valueOf(childOf(await local().admin.record(rec)), NOTES), 'ours kept here').toBe('mine');
  });
});

describe('a remote that does not say it guards its writes (a real ODR server)', () => {
  const { pushed, conflictsOf, remote, local } = pair({ realServer: true });

  it('is read before each record is written, and a change there since the base is a conflict', async () => {
    const mine = SYNTH.record(6);
    const theirs = SYNTH.record(7);
    await remote().client.setValue(theirs, TEXT, 'theirs');
    await local().admin.setValue(mine, TEXT, 'mine');
    await local().admin.setValue(theirs, TEXT, 'mine');
    const sent = await pushed();
    for (const rec of [mine, theirs]) {
      const write = sent.indexOf(valueWriteOf(rec));
      const read = sent.indexOf(readOf(rec));
      expect(read, `${rec} read first`).toBeGreaterThanOrEqual(0);
      if (write >= 0) expect(read).toBeLessThan(write);
    }
    expect(sent).not.toContain(valueWriteOf(theirs));
    expect(valueOf(await remote().client.record(mine))).toBe('mine');
    expect(valueOf(await remote().client.record(theirs))).toBe('theirs');
    expect(conflictsOf(theirs)).toMatchObject([{ field_uuid: TEXT, mine: 'mine', theirs: 'theirs' }]);
  });
});
