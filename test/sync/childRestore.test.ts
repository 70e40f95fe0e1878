import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { TestService } from '../support/service.js';
import { attachedPair, boundRemoteOf, restoreRecord, type gateProxy, type RemoteProc } from './support.js';

// Undo of a child record's delete on a synced dataset: the restored child is made again under
// its parent on the server (a second service process), whether or not the delete had gone out.

const NOTES = SYNTH.childField(3);
let remote: RemoteProc;
let local: TestService;
let remoteId: number;
let gate: Awaited<ReturnType<typeof gateProxy>>;

const run = async () => {
  const s = await local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
  expect(s.error).toBeUndefined();
  return s;
};
/** A record's children as (uuid, value of `field`). */
const kids = (r: OdrRecord) =>
  r.records
    .map((c) => [c.record_uuid, c.fields.find((f) => f.field_uuid === NOTES)?.value] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : 1));
const notesOf = (r: OdrRecord) => r.records.map((c) => c.fields.find((f) => f.field_uuid === NOTES)?.value).sort();

const recordDelete = (method: string, path: string) => method === 'DELETE' && path.endsWith('/record');

attachedPair(
  41,
  (p) => {
    ({ remote, local, remoteId } = p);
    gate = p.gate!;
  },
  { gated: true },
);

describe('restoring a deleted child record on a synced dataset (two processes, real HTTP)', () => {
  it('delete, sync, restore, sync: the child is back under its parent on the remote', async () => {
    const parent = SYNTH.record(10);
    const child = SYNTH.childRecord(10, 0);
    await local.admin.setValue(child, NOTES, 'child kept through the trash');
    await run();
    const before = notesOf(await remote.client.record(parent));
    expect(before).toContain('child kept through the trash');

    await local.admin.deleteRecords([child]);
    await run();
    expect(notesOf(await remote.client.record(parent))).not.toContain('child kept through the trash');

    const r = await restoreRecord(local, child);
    expect(r.status).toBe(200);
    const s = await run();
    expect(s.created).toBe(1);
    // Made anew there: the server gave it a uuid of its own, bound to ours.
    const there = boundRemoteOf(local, child);
    expect(there).toBeTruthy();
    const back = await remote.client.record(parent);
    expect(notesOf(back)).toEqual(before);
    expect(kids(back).find(([u]) => u === there)?.[1]).toBe('child kept through the trash');
    // Settled: the next pass sends nothing and the child stays here.
    expect((await run()).pushed).toBe(0);
    expect(kids(await local.admin.record(parent)).find(([u]) => u === child)?.[1]).toBe('child kept through the trash');
  });

  it('delete and restore before a sync: the child is never deleted there and the unsent edit arrives', async () => {
    const parent = SYNTH.record(20);
    const child = SYNTH.childRecord(20, 0);
    const count = (await remote.client.record(parent)).records.length;
    await local.admin.setValue(child, NOTES, 'edited, deleted, restored');
    await local.admin.deleteRecords([child]);
    expect((await restoreRecord(local, child)).status).toBe(200);
    expect((await run()).created).toBe(0);
    const there = await remote.client.record(parent);
    expect(there.records).toHaveLength(count);
    expect(kids(there).find(([u]) => u === child)?.[1]).toBe('edited, deleted, restored');
    expect(kids(await local.admin.record(parent)).find(([u]) => u === child)?.[1]).toBe('edited, deleted, restored');
  });

  it('restored while its delete is on its way: made anew under its parent there, kept here', async () => {
    const parent = SYNTH.record(30);
    const child = SYNTH.childRecord(30, 0);
    await local.admin.setValue(child, NOTES, 'deleted and restored meanwhile');
    await run();
    const before = notesOf(await remote.client.record(parent));
    await local.admin.deleteRecords([child]);
    const held = gate.hold(recordDelete);
    const pass = run();
    await held.reached;
    expect((await restoreRecord(local, child)).status).toBe(200);
    local.service.sync.status(); // the restore is collected while the delete is still on its way
    held.release();
    await pass;
    expect(kids(await local.admin.record(parent)).find(([u]) => u === child)?.[1], 'still here after the pass').toBe(
      'deleted and restored meanwhile',
    );
    await run();

    const there = boundRemoteOf(local, child);
    expect(there, 'bound to a new server record').toBeTruthy();
    expect(notesOf(await remote.client.record(parent))).toEqual(before);
    expect((await run()).pushed).toBe(0);
    expect(kids(await local.admin.record(parent)).find(([u]) => u === child)?.[1]).toBe('deleted and restored meanwhile');
  });

  it('restored after its delete was answered, before the pass reads its parent again: made anew there', async () => {
    const parent = SYNTH.record(40);
    const child = SYNTH.childRecord(40, 0);
    await local.admin.setValue(child, NOTES, 'restored between the delete and the re-read');
    await run();
    const before = notesOf(await remote.client.record(parent));
    await local.admin.deleteRecords([child]);
    const deleting = gate.hold(recordDelete);
    const pass = run();
    await deleting.reached;
    // The delete is answered and marked done; the parent's last server copy still lists the child
    // until the pass has read the parent again.
    const rereading = gate.hold((method, path) => method === 'GET' && path.endsWith(`/dataset/record/${parent}`));
    deleting.release();
    await rereading.reached;
    expect((await restoreRecord(local, child)).status).toBe(200);
    rereading.release();
    await pass;
    await run();

    expect(boundRemoteOf(local, child), 'bound to a new server record').toBeTruthy();
    expect(notesOf(await remote.client.record(parent))).toEqual(before);
    expect((await run()).pushed).toBe(0);
    expect(local.service.ctx.db.prepare("SELECT COUNT(*) FROM sync_outbox WHERE state = 'parked'").pluck().get()).toBe(0);
    expect(kids(await local.admin.record(parent)).find(([u]) => u === child)?.[1]).toBe('restored between the delete and the re-read');
  });
});
