import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { TestService } from '../support/service.js';
import { attachedPair, LOSE_ANSWER, pullOnly, syncRun, type gateProxy, type RemoteProc } from './support.js';

// A create made here whose answer was lost is on the server under a uuid not bound to ours yet:
// until the push finds it (docs/sync.md §5), a pull must take that server record for ours, not
// store it a second time here, and must still bring in what it skipped meanwhile afterwards.

const NOTES = SYNTH.childField(3);
const INT = SYNTH.field('Integer');
let remote: RemoteProc;
let local: TestService;
let remoteId: number;
let gate: Awaited<ReturnType<typeof gateProxy>>;

attachedPair(
  21,
  (p) => {
    ({ remote, local, remoteId } = p);
    gate = p.gate!;
  },
  { gated: true },
);

const me = () => local.service.domain.users.firstSuperUser()!;
const run = () => syncRun(local, remoteId);
const pullHere = () => pullOnly(local, remoteId);
const notes = (r: OdrRecord) => r.records.map((c) => String(c.fields.find((f) => f.field_uuid === NOTES)?.value ?? '')).sort();
const ids = async (c: TestService['admin']) => (await c.recordIds(SYNTH.dataset)).records.map((r) => r.unique_id);

/** A push whose first request matching `match` reaches the server but whose answer is lost. */
async function answerLost(match: (method: string, path: string) => boolean) {
  const held = gate.hold(match);
  const push = local.service.sync.engine(remoteId, me()).push();
  await held.reached;
  held.release(LOSE_ANSWER);
  await expect(push, 'the push stops at the write in doubt').rejects.toMatchObject({ kind: 'ambiguous' });
}

describe('a pull while a create made here is unsettled (its answer lost)', () => {
  it('a child: not doubled here; the server’s other new child still arrives once the create is settled', async () => {
    // Made here without values: its create is its only operation, so settling it writes nothing
    // and the server's copy of the record does not change again.
    const rec = SYNTH.record(10);
    const n = (await local.admin.record(rec)).records.length;
    await local.admin.save({ record_uuid: rec, records: [{ record_uuid: '', database_uuid: SYNTH.child, fields: [] }] });
    await answerLost((method, path) => method === 'POST' && path.endsWith('/dataset/record'));
    expect((await remote.client.record(rec)).records).toHaveLength(n + 1);
    await remote.client.save({
      record_uuid: rec,
      records: [{ record_uuid: '', database_uuid: SYNTH.child, fields: [{ field_uuid: NOTES, value: 'made there' }] }],
    });
    await pullHere();
    expect((await local.admin.record(rec)).records, 'the server copy of our child is not a second one here').toHaveLength(n + 1);

    await run();
    const there = await remote.client.record(rec);
    expect(there.records).toHaveLength(n + 2);
    const here = await local.admin.record(rec);
    expect(here.records).toHaveLength(n + 2);
    expect(notes(here)).toEqual(notes(there));
    expect(notes(here)).toContain('made there');
    expect((await run()).pushed).toBe(0);
    expect((await remote.client.record(rec)).records).toHaveLength(n + 2);
  });

  it('a top-level record: not stored twice here, and made once there', async () => {
    const count = (await ids(remote.client)).length;
    const made = await local.admin.createRecord(SYNTH.dataset);
    await local.admin.setValue(made.record_uuid, INT, 4242);
    await answerLost((method, path) => method === 'POST' && path.endsWith(`/dataset/${SYNTH.dataset}/record`));
    expect(await ids(remote.client)).toHaveLength(count + 1);
    // Another client's new record meanwhile: it waits with ours, and is not skipped for good.
    const other = await remote.client.createRecord(SYNTH.dataset);
    const cursor = () => local.service.sync.status().datasets.find((d) => d.dataset_uuid === SYNTH.dataset)?.cursor;
    const before = cursor();
    await pullHere();
    expect(await ids(local.admin), 'the server copy of our create is not a second record here').toHaveLength(count + 1);
    expect(cursor(), 'the pull cursor waits with them').toBe(before);

    await run();
    expect(await ids(remote.client)).toHaveLength(count + 2);
    expect(await ids(local.admin)).toHaveLength(count + 2);
    expect(await ids(local.admin)).toContain(other.record_uuid);
    const bound = local.service.ctx.db.prepare('SELECT remote_uuid FROM sync_id_map WHERE local_uuid = ?').pluck().get(made.record_uuid);
    expect((await remote.client.record(bound as string)).fields.find((f) => f.field_uuid === INT)?.value).toBe(4242);
    expect((await run()).pushed).toBe(0);
  });
});
