import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { RECORD_DELETED_FIELD } from '../../shared/schemas/sync.js';
import type { TestService } from '../support/service.js';
import { attachedPair, CHILD_FILE, pullOnly, storeFile, syncRun, withChildFile, type RemoteProc } from './support.js';

// A record on the merge path (file bytes stored here, an edit waiting) took the server's new
// children but kept those the server deleted: the two sides stayed apart for good. Now such a
// child is deleted here too, unless a change of it waits here: then it stays, with a conflict.

const INT = SYNTH.field('Integer');
const NOTES = SYNTH.childField(3);
let remote: RemoteProc;
let local: TestService;
let remoteId: number;

// Records 10, 20 and 30 of the synthetic set have children.
attachedPair(31, (p) => ({ remote, local, remoteId } = p), { template: withChildFile });

const run = () => syncRun(local, remoteId);
const pullHere = () => pullOnly(local, remoteId);
const kids = (r: OdrRecord) => r.records.map((c) => c.record_uuid).sort();
const notes = (r: OdrRecord) => r.records.map((c) => c.fields.find((f) => f.field_uuid === NOTES)?.value ?? '').sort();
/** The names of the files on the children's file field. */
const childFiles = (r: OdrRecord) =>
  r.records.flatMap((c) => c.fields.find((f) => f.field_uuid === CHILD_FILE)?.files?.map((f) => f.original_name) ?? []);
const goneConflicts = (rec: string) =>
  local.service.sync.conflicts().filter((c) => c.record_uuid === rec && c.field_uuid === RECORD_DELETED_FIELD);

/** A record whose file bytes are stored here (so merged from now on), synced: its children. */
async function mergedWithChildren(rec: string): Promise<string[]> {
  await storeFile(local.admin, rec, `${rec}.txt`);
  await run();
  const children = kids(await local.admin.record(rec));
  expect(children.length).toBeGreaterThan(0);
  expect(kids(await remote.client.record(rec))).toEqual(children);
  return children;
}

describe('a child the server deleted, its record on the merge path', () => {
  it('is deleted here too, with the server’s other changes, and nothing goes back', async () => {
    const rec = SYNTH.record(10);
    const [child] = await mergedWithChildren(rec);
    await remote.client.deleteRecords([child!]);
    await remote.client.setValue(rec, INT, 1001);
    await run();
    const here = await local.admin.record(rec);
    expect(kids(here)).not.toContain(child);
    expect(kids(here)).toEqual(kids(await remote.client.record(rec)));
    expect(here.fields.find((f) => f.field_uuid === INT)?.value).toBe(1001);
    expect(local.service.sync.conflicts()).toEqual([]);
    expect((await run()).pushed).toBe(0);
    expect(kids(await remote.client.record(rec))).not.toContain(child);
  });

  it('with an edit of it not sent yet: it stays with the edit and its file, a conflict says so; "mine" makes it on the server again', async () => {
    const rec = SYNTH.record(20);
    const [child] = kids(await local.admin.record(rec));
    await local.admin.uploadFile(
      { dataset_uuid: SYNTH.child, record_uuid: child!, field_uuid: CHILD_FILE },
      { blob: new Blob(['bytes of the child file'], { type: 'text/plain' }), name: 'child.txt' },
    );
    await mergedWithChildren(rec);
    expect(childFiles(await remote.client.record(rec))).toEqual(['child.txt']);
    await local.admin.setValue(child!, NOTES, 'edited here, not sent yet');
    await remote.client.deleteRecords([child!]);
    await pullHere();
    const here = await local.admin.record(rec);
    expect(kids(here)).toContain(child);
    expect(notes(here)).toContain('edited here, not sent yet');
    expect(childFiles(here), 'its file is no server deletion to apply here').toEqual(['child.txt']);
    expect(goneConflicts(child!)).toMatchObject([{ theirs: 'deleted on the server' }]);
    // The edit waits in the conflict: nothing is sent to the deleted record, nothing is parked.
    await run();
    expect(local.service.sync.status().needsAttention).toEqual([]);
    expect(goneConflicts(child!)).toHaveLength(1);
    expect(kids(await local.admin.record(rec))).toContain(child);

    local.service.sync.resolve(goneConflicts(child!)[0]!.id, 'mine', local.service.domain.users.firstSuperUser()!);
    await run();
    const there = await remote.client.record(rec);
    expect(notes(there)).toContain('edited here, not sent yet');
    expect(childFiles(there)).toEqual(['child.txt']);
    expect(there.records).toHaveLength(here.records.length);
    expect(notes(await local.admin.record(rec))).toEqual(notes(there));
    expect(local.service.sync.conflicts()).toEqual([]);
    expect((await run()).pushed).toBe(0);
    expect(kids(await local.admin.record(rec))).toContain(child);
  });

  it('with an edit of it not sent yet, "theirs": it is deleted here, the edit is dropped', async () => {
    const rec = SYNTH.record(30);
    const [child] = await mergedWithChildren(rec);
    await local.admin.setValue(child!, NOTES, 'edited here, then given up');
    await remote.client.deleteRecords([child!]);
    await pullHere();
    expect(kids(await local.admin.record(rec))).toContain(child);
    local.service.sync.resolve(goneConflicts(child!)[0]!.id, 'theirs', local.service.domain.users.firstSuperUser()!);
    expect(kids(await local.admin.record(rec))).not.toContain(child);
    expect((await run()).pushed).toBe(0);
    expect(kids(await local.admin.record(rec))).toEqual(kids(await remote.client.record(rec)));
    expect(notes(await remote.client.record(rec))).not.toContain('edited here, then given up');
    expect(local.service.sync.conflicts()).toEqual([]);
    expect(local.service.sync.status().needsAttention).toEqual([]);
  });
});
