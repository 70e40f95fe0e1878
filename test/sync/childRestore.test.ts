import { describe, expect, it } from 'vitest';
import { SYNTH, syntheticTemplate } from '../../bench/synthetic.js';
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

// A datatype under the synthetic child one, so that a restored child can have a child of its own.
const GRAND = 'a0000000000000000000000000d3';
const GRAND_NOTE = 'cd00000000000000000000000001';
function withGrandchild(): unknown {
  const tpl = syntheticTemplate() as { related_databases: { related_databases: unknown[] }[] };
  const meta = { _create_date: '2025-01-01 00:00:00', _create_auth: 'x', _public_date: '2025-01-01 00:00:00' };
  tpl.related_databases[0]!.related_databases.push({
    internal_id: 903,
    name: 'Aliquots',
    description: null,
    template_uuid: GRAND,
    updated_at: '2025-01-01 00:00:00',
    metadata_for_uuid: '',
    _database_metadata: meta,
    fields: [
      {
        internal_id: 9201,
        name: 'Aliquot note',
        description: '',
        fieldtype: 'Short Text',
        field_uuid: GRAND_NOTE,
        template_field_uuid: null,
        updated_at: '2025-01-01 00:00:00',
        _field_metadata: meta,
      },
    ],
    related_databases: [],
  });
  return tpl;
}
/** A new grandchild under `child` of top-level `parent`, through `client` (here or the remote). */
const addGrandchild = (client: TestService['admin'], parent: string, child: string, note: string) =>
  client.save({
    record_uuid: parent,
    records: [
      { record_uuid: child, records: [{ record_uuid: '', database_uuid: GRAND, fields: [{ field_uuid: GRAND_NOTE, value: note }] }] },
    ],
  });
/** The notes of a record's grandchildren. */
const grandNotes = (r: OdrRecord) =>
  r.records.flatMap((c) => c.records.map((g) => g.fields.find((f) => f.field_uuid === GRAND_NOTE)?.value)).sort();

attachedPair(
  51,
  (p) => {
    ({ remote, local, remoteId } = p);
    gate = p.gate!;
  },
  { gated: true, template: withGrandchild },
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

  it('a child with a child of its own, restored while its delete is on its way: both made anew, in order', async () => {
    const parent = SYNTH.record(50);
    const child = SYNTH.childRecord(50, 0);
    // Made on the server and pulled: the grandchild keeps the server's uuid here (no id map row).
    await addGrandchild(remote.client, parent, child, 'aliquot');
    await run();
    const before = await remote.client.record(parent);
    expect(grandNotes(before)).toEqual(['aliquot']);
    expect(grandNotes(await local.admin.record(parent))).toEqual(['aliquot']);
    await local.admin.deleteRecords([child]);
    const held = gate.hold(recordDelete);
    const pass = run();
    await held.reached;
    expect((await restoreRecord(local, child)).status).toBe(200);
    local.service.sync.status(); // collected now: the grandchild is still known there, so it gets a converge
    // The delete is answered and the tree queued anew (the pass then reads the parent again): no
    // operation of the grandchild's may wait ahead of its create, as its stale converge did.
    const reread = gate.hold((method, path) => method === 'GET' && path.endsWith(`/dataset/record/${parent}`));
    held.release();
    await reread.reached;
    const queued = local.service.ctx.db
      .prepare<[], { op: string; record_uuid: string }>("SELECT op, record_uuid FROM sync_outbox WHERE state = 'pending' ORDER BY id")
      .all();
    reread.release();
    const grandchild = (await local.admin.record(parent)).records.find((c) => c.record_uuid === child)!.records[0]!.record_uuid;
    const mine = queued.filter((o) => o.record_uuid === grandchild).map((o) => o.op);
    expect(mine).toEqual(['create_child', 'converge']);
    expect(queued.findIndex((o) => o.record_uuid === child && o.op === 'create_child')).toBe(0);
    await pass;
    await run();

    expect(boundRemoteOf(local, child), 'bound to a new server record').toBeTruthy();
    const after = await remote.client.record(parent);
    expect(notesOf(after)).toEqual(notesOf(before));
    expect(grandNotes(after)).toEqual(['aliquot']);
    expect(local.service.ctx.db.prepare("SELECT COUNT(*) FROM sync_outbox WHERE state = 'parked'").pluck().get()).toBe(0);
    expect((await run()).pushed).toBe(0);
  });

  it("a child deleted with a child of its own not sent yet: nothing of the grandchild's goes out", async () => {
    const parent = SYNTH.record(20);
    const child = SYNTH.childRecord(20, 0);
    await addGrandchild(local.admin, parent, child, 'never sent');
    const grandchild = (await local.admin.record(parent)).records.find((c) => c.record_uuid === child)!.records[0]!.record_uuid;
    local.service.sync.status(); // its create and value are queued
    const pendingOf = (uuid: string) =>
      local.service.ctx.db.prepare("SELECT op FROM sync_outbox WHERE state = 'pending' AND record_uuid = ?").pluck().all(uuid);
    expect(pendingOf(grandchild)).toContain('create_child');
    await local.admin.deleteRecords([child]);
    local.service.sync.status();
    expect(pendingOf(grandchild)).toEqual([]);
    expect(pendingOf(child)).toEqual(['delete']);
    const s = await run();
    expect(s.created).toBe(0);
    expect(s.parked).toBe(0);
    expect(kids(await remote.client.record(parent)).map(([u]) => u)).not.toContain(child);
  });
});
