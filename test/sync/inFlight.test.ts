import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { TestService } from '../support/service.js';
import { gatedPair, onBothServers, type gateProxy, type RemoteProc } from './support.js';

// Edits made here while a sync's request is on its way (the live-mode case: nobody waits for a
// sync to finish before editing). The proxy holds exactly that request while the edit is made.
// Each of these lost the edit or the server's change before the fix (found by faultsLive).

const TEXT = SYNTH.field('Medium Text');
const FILE = SYNTH.field('File');
const OTHER = SYNTH.field('Long Text');
let remote: RemoteProc;
let local: TestService;
let gate: Awaited<ReturnType<typeof gateProxy>>;
let remoteId: number;

const value = (r: OdrRecord) => r.fields.find((f) => f.field_uuid === TEXT)?.value;
const run = async () => {
  const s = await local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
  expect(s.error).toBeUndefined();
  return s;
};
const fileNames = async (c: TestService['admin'] | RemoteProc['client'], rec: string) =>
  (await c.record(rec)).fields.find((f) => f.field_uuid === FILE)?.files?.map((f) => f.original_name) ?? [];
/** Uploads a small file here; its uuid. */
const uploadHere = async (rec: string, name: string) => {
  const up = await local.admin.uploadFile(
    { dataset_uuid: SYNTH.dataset, record_uuid: rec, field_uuid: FILE, template_field_uuid: '' },
    { blob: new Blob([Buffer.from(name)]), name },
  );
  return up.fields.find((f) => f.field_uuid === FILE)!.files!.find((f) => f.original_name === name)!.file_uuid;
};
/** Deletes the file here while the push's request that `held` matches waits at the gate, and lets it go. */
const deleteWhileHeld = async (uuid: string, held: (method: string, path: string) => boolean) => {
  const hold = gate.hold(held);
  const pass = run();
  await hold.reached;
  await local.admin.deleteFile(uuid);
  local.service.sync.status(); // collects the outbox while the request waits
  hold.release();
  await pass;
};
const isValueWrite = (method: string, path: string) => method === 'POST' && path.endsWith(`/${TEXT}/value`);

onBothServers((realServer) => {
  gatedPair(6, realServer, (p) => ({ remote, local, remoteId, gate } = p));

  describe('an edit made while a sync request is on its way', () => {
    it('during a push of the same field: kept here and sent by the next pass, not replaced by the answer', async () => {
      const rec = SYNTH.record(1);
      // A server change to another field, so its answer differs from what is here.
      await remote.client.setValue(rec, OTHER, 'from the server');
      await local.admin.setValue(rec, TEXT, 'first');
      const held = gate.hold(isValueWrite);
      const pass = run();
      await held.reached;
      await local.admin.setValue(rec, TEXT, 'second');
      // The next request comes after the answer was applied here: look at the record then.
      const next = gate.hold((method) => method === 'GET');
      held.release();
      await next.reached;
      const meanwhile = value(await local.admin.record(rec));
      next.release();
      await pass;
      expect(meanwhile, 'the edit while the answer was applied').toBe('second');
      const here = await local.admin.record(rec);
      expect(value(here)).toBe('second');
      expect(here.fields.find((f) => f.field_uuid === OTHER)?.value).toBe('from the server');
      await run();
      expect(value(await remote.client.record(rec))).toBe('second');
      expect(value(await local.admin.record(rec))).toBe('second');
      expect(local.service.sync.conflicts()).toEqual([]);
    });

    it('collected into the operation on its way (the status was read meanwhile): still sent by the next pass', async () => {
      const rec = SYNTH.record(2);
      await local.admin.setValue(rec, TEXT, 'first');
      const held = gate.hold(isValueWrite);
      const pass = run();
      await held.reached;
      await local.admin.setValue(rec, TEXT, 'second');
      local.service.sync.status(); // collects the outbox: the edit lands in the operation being sent
      held.release();
      await pass;
      await run();
      expect(value(await remote.client.record(rec))).toBe('second');
      expect(value(await local.admin.record(rec))).toBe('second');
      expect(local.service.sync.conflicts()).toEqual([]);
    });

    it('a file deleted here while a pull reads its record, changed on the server: a conflict, not a silent delete', async () => {
      const rec = SYNTH.record(3);
      const up = await remote.client.uploadFile(
        { dataset_uuid: SYNTH.dataset, record_uuid: rec, field_uuid: FILE, template_field_uuid: '' },
        { blob: new Blob([Buffer.from('contested')]), name: 'contested.txt' },
      );
      const uuid = up.fields.find((f) => f.field_uuid === FILE)!.files!.find((f) => f.original_name === 'contested.txt')!.file_uuid;
      await run();
      await remote.client.save({
        record_uuid: rec,
        fields: [{ field_uuid: FILE, files: [{ file_uuid: uuid, public_date: '2031-02-03 04:05:06' }] }],
      });
      const held = gate.hold((method, path) => method === 'GET' && path.endsWith(`/dataset/record/${rec}`));
      const pass = run();
      await held.reached;
      await local.admin.deleteFile(uuid);
      held.release();
      await pass;
      await run();
      const conflicts = local.service.sync.conflicts();
      expect(conflicts).toHaveLength(1);
      expect(conflicts[0]).toMatchObject({ item_uuid: uuid, mine: 'deleted here' });
      const there = (await remote.client.record(rec)).fields.find((f) => f.field_uuid === FILE)!.files!.map((f) => f.file_uuid);
      expect(there).toContain(uuid);
      local.service.sync.resolve(conflicts[0]!.id, 'theirs', local.service.domain.users.firstSuperUser()!);
      await run();
      const here = (await local.admin.record(rec)).fields.find((f) => f.field_uuid === FILE)!.files!.find((f) => f.file_uuid === uuid);
      expect(here?._file_metadata?._public_date).toBe('2031-02-03 04:05:06');
    });

    it('"keep mine" of a file deleted on the server and never downloaded here is refused with the reason', async () => {
      const rec = SYNTH.record(4);
      const up = await remote.client.uploadFile(
        { dataset_uuid: SYNTH.dataset, record_uuid: rec, field_uuid: FILE, template_field_uuid: '' },
        { blob: new Blob([Buffer.from('gone')]), name: 'gone.txt' },
      );
      const uuid = up.fields.find((f) => f.field_uuid === FILE)!.files!.find((f) => f.original_name === 'gone.txt')!.file_uuid;
      await run();
      await remote.client.deleteFile(uuid);
      await local.admin.save({ record_uuid: rec, fields: [{ field_uuid: FILE, files: [{ file_uuid: uuid, quality: 4 }] }] });
      await run();
      const [c] = local.service.sync.conflicts();
      expect(c).toMatchObject({ item_uuid: uuid, theirs: 'deleted on the server' });
      expect(() => local.service.sync.resolve(c!.id, 'mine', local.service.domain.users.firstSuperUser()!)).toThrow(/not on this computer/);
      expect(local.service.sync.conflicts()).toHaveLength(1); // nothing changed
      local.service.sync.resolve(c!.id, 'theirs', local.service.domain.users.firstSuperUser()!);
      await run();
      expect(local.service.sync.conflicts()).toEqual([]);
    });
    it('a file deleted here while its upload reads the record first: never sent, not left on the server', async () => {
      const rec = SYNTH.record(5);
      const uuid = await uploadHere(rec, 'short-lived.txt');
      await deleteWhileHeld(uuid, (method, path) => method === 'GET' && path.endsWith(`/dataset/record/${rec}`));
      await run();
      expect(await fileNames(remote.client, rec)).not.toContain('short-lived.txt');
      expect(await fileNames(local.admin, rec)).not.toContain('short-lived.txt');
    });
    it('a file deleted here while its upload is on its way: deleted on the server too', async () => {
      const rec = SYNTH.record(5);
      const uuid = await uploadHere(rec, 'in-flight.txt');
      await deleteWhileHeld(uuid, (method, path) => method === 'POST' && path.endsWith('/file'));
      await run();
      await run();
      expect(await fileNames(remote.client, rec)).not.toContain('in-flight.txt');
      expect(await fileNames(local.admin, rec)).not.toContain('in-flight.txt');
    });
    it('a file deleted here while a change of its public date is on its way: deleted on the server too', async () => {
      const rec = SYNTH.record(5);
      const uuid = await uploadHere(rec, 'dated.txt');
      await run();
      await local.admin.save({
        record_uuid: rec,
        fields: [{ field_uuid: FILE, files: [{ file_uuid: uuid, public_date: '2031-02-03 04:05:06' }] }],
      });
      await deleteWhileHeld(uuid, (method, path) => method === 'POST' && path.endsWith('/dataset/record'));
      await run();
      expect(await fileNames(remote.client, rec)).not.toContain('dated.txt');
      expect(await fileNames(local.admin, rec)).not.toContain('dated.txt');
      expect(local.service.sync.conflicts()).toEqual([]);
    });
  });
});
