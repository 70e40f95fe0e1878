import { beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { TestService } from '../support/service.js';
import { attachedPair, boundRemoteOf, restoreRecord, type RemoteProc } from './support.js';

// Undo of a delete (POST /local/records/{uuid}/restore) on a synced dataset: the restore is a
// local change like any other, so the next sync brings the record back on the server whether
// or not the delete had gone out.

const TEXT = SYNTH.field('Medium Text');
const INT = SYNTH.field('Integer');
let remote: RemoteProc;
let local: TestService;
let remoteId: number;

const value = (r: { fields: { field_uuid: string; value?: unknown }[] }, f: string) => r.fields.find((x) => x.field_uuid === f)?.value;
const run = async () => {
  const s = await local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
  expect(s.error).toBeUndefined();
  return s;
};
const restore = (uuid: string) => restoreRecord(local, uuid);
const remoteIds = async () => (await remote.client.recordIds(SYNTH.dataset)).records.map((r) => r.unique_id);
const remoteOf = (uuid: string) => boundRemoteOf(local, uuid);

attachedPair(12, (p) => ({ remote, local, remoteId } = p));
// The first sync pulled every record of the remote.
beforeAll(async () => expect((await local.admin.recordIds(SYNTH.dataset)).records).toHaveLength(12));

describe('restoring a deleted record on a synced dataset (two processes, real HTTP)', () => {
  it('delete, sync, restore, sync: the record is back on the remote with its values', async () => {
    const uuid = SYNTH.record(2);
    await local.admin.setValue(uuid, TEXT, 'kept through the trash');
    await run();
    const int = value(await remote.client.record(uuid), INT);
    const count = (await remoteIds()).length;

    await local.admin.deleteRecords([uuid]);
    await run();
    expect(await remoteIds()).not.toContain(uuid);

    const r = await restore(uuid);
    expect(r.status).toBe(200);
    expect(r.body.record_uuid).toBe(uuid);
    expect(value(await local.admin.record(uuid), TEXT)).toBe('kept through the trash');
    const s = await run();
    expect(s.created).toBe(1);
    // The server gave it a uuid of its own; the map binds ours to it.
    const there = remoteOf(uuid);
    expect(there).toBeTruthy();
    expect(await remoteIds()).toHaveLength(count);
    const back = await remote.client.record(there!);
    expect(value(back, TEXT)).toBe('kept through the trash');
    expect(value(back, INT)).toBe(int);
    // Settled: the next pass sends nothing and the record stays here (not "removed on server").
    expect((await run()).pushed).toBe(0);
    expect(value(await local.admin.record(uuid), TEXT)).toBe('kept through the trash');
    expect(local.service.sync.status().removedOnServer.map((x) => (x as { record_uuid: string }).record_uuid)).not.toContain(uuid);
  });

  it('a record created here: delete, sync, restore, sync makes it anew on the remote', async () => {
    const made = await local.admin.createRecord(SYNTH.dataset);
    await local.admin.setValue(made.record_uuid, TEXT, 'born here, deleted, restored');
    await run();
    const first = remoteOf(made.record_uuid)!;
    expect(value(await remote.client.record(first), TEXT)).toBe('born here, deleted, restored');
    const count = (await remoteIds()).length;

    await local.admin.deleteRecords([made.record_uuid]);
    await run();
    expect(await remoteIds()).not.toContain(first);
    expect((await restore(made.record_uuid)).status).toBe(200);
    expect((await run()).created).toBe(1);
    const second = remoteOf(made.record_uuid)!;
    expect(second).not.toBe(first);
    expect(await remoteIds()).toHaveLength(count);
    expect(value(await remote.client.record(second), TEXT)).toBe('born here, deleted, restored');
    expect((await run()).pushed).toBe(0);
  });

  it('delete and restore before a sync: nothing is deleted there and the unsent edit arrives', async () => {
    const uuid = SYNTH.record(3);
    const count = (await remoteIds()).length;
    await local.admin.setValue(uuid, TEXT, 'edited, deleted, restored');
    await local.admin.deleteRecords([uuid]);
    expect((await restore(uuid)).status).toBe(200);
    const s = await run();
    expect(s.created).toBe(0);
    expect(await remoteIds()).toHaveLength(count);
    expect(await remoteIds()).toContain(uuid);
    expect(value(await remote.client.record(uuid), TEXT)).toBe('edited, deleted, restored');
    expect(value(await local.admin.record(uuid), TEXT)).toBe('edited, deleted, restored');
  });

  it('a record not in the trash, or there already, is refused with a clear error and changes nothing', async () => {
    const before = local.digest();
    const unknown = await restore('0123456789abcdef0123456789abcdef');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.message).toMatch(/not in the trash/);
    const live = await restore(SYNTH.record(4));
    expect(live.status).toBe(404);
    expect(local.digest()).toBe(before);
  });
});
