import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { TestService } from '../support/service.js';
import {
  gatedPair,
  onBothServers,
  parkedOf,
  refusedRun,
  setPublicDate,
  storeFile,
  syncRun,
  type gateProxy,
  type RemoteProc,
} from './support.js';

// An operation the server refused was parked, and the next pull undid it here without a word:
// a refused delete brought the server's copy back (edits not yet sent and files only here lost),
// a refused value or option went back to the server's. Now the refusal is listed and what was
// done here stays (docs/sync.md §5).

const TEXT = SYNTH.field('Medium Text');
const INT = SYNTH.field('Integer');
const MS = SYNTH.field('Multiple Select');
const FILE = SYNTH.field('File');
let remote: RemoteProc;
let local: TestService;
let gate: Awaited<ReturnType<typeof gateProxy>>;
let remoteId: number;

const run = () => syncRun(local, remoteId);
const value = (r: OdrRecord, f: string) => r.fields.find((x) => x.field_uuid === f)?.value;
const sel = (r: OdrRecord, f: string) => (r.fields.find((x) => x.field_uuid === f)?.values ?? []).map((v) => v.template_radio_option_uuid);
const parked = (rec: string) => parkedOf(local, rec);
const remoteIds = async () => (await remote.client.recordIds(SYNTH.dataset)).records.map((r) => r.unique_id);
const filesOf = (r: OdrRecord) => (r.fields.find((x) => x.field_uuid === FILE)?.files ?? []).map((f) => f.original_name);

const refused = (match: (method: string, path: string) => boolean) => refusedRun({ local, remoteId, gate }, match);

onBothServers((realServer) => {
  gatedPair(9, realServer, (p) => ({ remote, local, remoteId, gate } = p));

  describe('an operation the server refuses', () => {
    it('a delete: the record is back here with its unsent edits and its files, and the refusal is listed', async () => {
      const rec = SYNTH.record(1);
      await storeFile(local.admin, rec, 'kept.txt', 'bytes kept here');
      await run();
      const count = (await remoteIds()).length;
      await local.admin.setValue(rec, TEXT, 'edited just before the delete');
      await local.admin.deleteRecords([rec]);
      await refused((method, path) => method === 'DELETE' && path.endsWith('/record'));

      const here = await local.admin.record(rec);
      expect(value(here, TEXT), 'the edit made here is not undone').toBe('edited just before the delete');
      expect(filesOf(here)).toContain('kept.txt');
      const file = here.fields.find((x) => x.field_uuid === FILE)!.files!.find((f) => f.original_name === 'kept.txt')!;
      expect(await (await local.admin.send('GET', `/file/${file.file_uuid}`)).text()).toBe('bytes kept here');
      expect(parked(rec)).toMatchObject([
        { op: 'delete', last_error: expect.stringMatching(/refused to delete this record \(.*refused by the test.*\): it is back here/) },
      ]);

      // The edit the delete had dropped goes out; the server's record stays the one record.
      await run();
      expect(value(await remote.client.record(rec), TEXT)).toBe('edited just before the delete');
      expect(await remoteIds()).toHaveLength(count);
      expect(parked(rec)).toHaveLength(1);
      expect(local.service.sync.status().removedOnServer.map((r) => r.record_uuid)).not.toContain(rec);

      // Deleted again and accepted: gone there, and the old refusal is no longer listed.
      await local.admin.deleteRecords([rec]);
      await run();
      expect(await remoteIds()).not.toContain(rec);
      expect(parked(rec)).toEqual([]);
      await run();
      expect(await remoteIds()).not.toContain(rec);
    });

    it("a value: it stays as edited here, with the refusal listed, while the record takes the server's other changes", async () => {
      const rec = SYNTH.record(2);
      const before = value(await remote.client.record(rec), TEXT);
      await local.admin.setValue(rec, TEXT, 'refused here');
      await remote.client.setValue(rec, INT, 777);
      await refused((method, path) => method === 'POST' && path.endsWith(`/${TEXT}/value`));
      const check = async (int: number) => {
        const here = await local.admin.record(rec);
        expect(value(here, TEXT)).toBe('refused here');
        expect(value(here, INT)).toBe(int);
        expect(value(await remote.client.record(rec), TEXT)).toBe(before);
        expect(parked(rec)).toMatchObject([{ op: 'value', field_uuid: TEXT, last_error: expect.stringMatching(/refused by the test/) }]);
      };
      await check(777);
      // A later pull of a server change to the record does not undo it either.
      await remote.client.setValue(rec, INT, 778);
      await run();
      await check(778);
    });

    it('an option: it stays selected here, with the refusal listed', async () => {
      const rec = SYNTH.record(3);
      const start = sel(await local.admin.record(rec), MS);
      const x = [1, 2, 3, 4, 5].map((k) => SYNTH.option('Multiple Select', k)).find((o) => !start.includes(o))!;
      await local.admin.setOption(rec, MS, x, true);
      await remote.client.setValue(rec, INT, 779);
      await refused((method, path) => method === 'PUT' && path.includes(`/${MS}/${x}/`));
      await remote.client.setValue(rec, INT, 780);
      await run();
      const here = await local.admin.record(rec);
      expect(sel(here, MS)).toContain(x);
      expect(value(here, INT)).toBe(780);
      expect(sel(await remote.client.record(rec), MS)).not.toContain(x);
      expect(parked(rec)).toMatchObject([{ op: 'option', field_uuid: MS }]);
    });

    it('a public date: it stays as set here, with the refusal listed', async () => {
      const rec = SYNTH.record(4);
      const before = (await remote.client.record(rec))._record_metadata._public_date;
      await setPublicDate(local.admin, rec, '2036-01-01 00:00:00');
      await remote.client.setValue(rec, INT, 781);
      await refused((method, path) => method === 'POST' && path.endsWith('/dataset/record/public'));
      await run();
      const here = await local.admin.record(rec);
      expect(here._record_metadata._public_date).toBe('2036-01-01 00:00:00');
      expect(value(here, INT)).toBe(781);
      expect((await remote.client.record(rec))._record_metadata._public_date).toBe(before);
      expect(parked(rec)).toMatchObject([{ op: 'public' }]);
    });

    it("a file's metadata change: it stays here, with the refusal listed", async () => {
      const rec = SYNTH.record(5);
      await storeFile(local.admin, rec, 'quality.txt', 'a file whose quality is refused');
      await run();
      const fileOf = (r: OdrRecord) => r.fields.find((x) => x.field_uuid === FILE)!.files!.find((f) => f.original_name === 'quality.txt')!;
      const mine = fileOf(await local.admin.record(rec));
      await local.admin.save({ record_uuid: rec, fields: [{ field_uuid: FILE, files: [{ file_uuid: mine.file_uuid, quality: 3 }] }] });
      await remote.client.setValue(rec, INT, 782);
      await refused((method, path) => method === 'POST' && path.endsWith('/dataset/record'));
      await remote.client.setValue(rec, INT, 783);
      await run();
      const here = await local.admin.record(rec);
      expect(fileOf(here)._file_metadata?._quality).toBe('3');
      expect(value(here, INT)).toBe(783);
      expect(fileOf(await remote.client.record(rec))._file_metadata?._quality).not.toBe('3');
      expect(parked(rec)).toMatchObject([{ op: 'file_meta' }]);
    });
  });

  // A refused edit the user then replaced with a newer one that went through: the newer one is what
  // here holds, so a later pull that replaces the record takes the server's changes and never writes
  // the refused value back (review 6, finding 1).
  describe('a refused edit replaced by a newer accepted one', () => {
    it('a value: the refusal is no longer listed, and a later server change of the field applies here', async () => {
      const rec = SYNTH.record(6);
      await local.admin.setValue(rec, TEXT, 'refused once');
      await refused((method, path) => method === 'POST' && path.endsWith(`/${TEXT}/value`));
      expect(parked(rec)).toHaveLength(1);
      await local.admin.setValue(rec, TEXT, 'sent the second time');
      await run();
      expect(value(await remote.client.record(rec), TEXT)).toBe('sent the second time');
      await remote.client.setValue(rec, TEXT, 'changed on the server later');
      await run();
      expect(value(await local.admin.record(rec), TEXT)).toBe('changed on the server later');
      expect(local.service.sync.conflicts().filter((c) => c.record_uuid === rec)).toEqual([]);
      expect(parked(rec)).toEqual([]);
    });

    it('an option: unselected again and sent, it stays unselected after a server change of the field', async () => {
      const rec = SYNTH.record(7);
      const start = sel(await local.admin.record(rec), MS);
      const [x, y] = [1, 2, 3, 4, 5].map((k) => SYNTH.option('Multiple Select', k)).filter((o) => !start.includes(o));
      await local.admin.setOption(rec, MS, x!, true);
      await refused((method, path) => method === 'PUT' && path.includes(`/${MS}/${x}/`));
      await local.admin.setOption(rec, MS, x!, false);
      await run();
      await remote.client.setOption(rec, MS, y!, true);
      await run();
      const here = sel(await local.admin.record(rec), MS);
      expect(here).toContain(y);
      expect(here).not.toContain(x);
      expect(parked(rec)).toEqual([]);
    });

    it('a public date: set again and sent, a later server change of it applies here', async () => {
      const rec = SYNTH.record(8);
      const setPublic = (public_date: string) => setPublicDate(local.admin, rec, public_date);
      await setPublic('2036-01-01 00:00:00');
      await refused((method, path) => method === 'POST' && path.endsWith('/dataset/record/public'));
      await setPublic('2035-01-01 00:00:00');
      await run();
      expect((await remote.client.record(rec))._record_metadata._public_date).toBe('2035-01-01 00:00:00');
      await setPublicDate(remote.client, rec, '2037-01-01 00:00:00');
      await run();
      expect((await local.admin.record(rec))._record_metadata._public_date).toBe('2037-01-01 00:00:00');
      expect(parked(rec)).toEqual([]);
    });
  });
});
