import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { startService, startSyntheticService, tempDir, type TestService } from '../support/service.js';

// A file's rid and internal id (its id in the API and exports), once handed out, are never handed
// out again, as a record's (recordIds.test.ts, migrations/026_file_id_floor.ts).

const FILE = SYNTH.field('File');
let t: TestService;
let names = 0;

interface Ids {
  rid: number;
  internal_id: number;
}
const highest = (s: TestService) =>
  s.service.ctx.db.prepare('SELECT MAX(rid) AS rid, MAX(internal_id) AS internal_id FROM files').get() as Ids;
/** Uploads a file to record `i`; answers its row, which must hold the highest ids there are. */
const upload = async (s: TestService, i: number) => {
  const name = `ids-${++names}.txt`;
  await s.admin.uploadFile(
    { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(i), field_uuid: FILE },
    { blob: new Blob([`bytes of ${name}`], { type: 'text/plain' }), name },
  );
  const row = s.service.ctx.db.prepare('SELECT uuid, rid, internal_id FROM files WHERE original_name = ?').get(name) as Ids & {
    uuid: string;
  };
  expect({ rid: row.rid, internal_id: row.internal_id }).toEqual(highest(s));
  return row;
};
const above = (later: Ids, gone: Ids) => {
  expect(later.rid).toBeGreaterThan(gone.rid);
  expect(later.internal_id).toBeGreaterThan(gone.internal_id);
};
const fileIds = (s: TestService, uuid: string) =>
  s.service.ctx.db.prepare('SELECT rid, internal_id FROM files WHERE uuid = ?').get(uuid) as Ids | undefined;
const restore = (s: TestService, uuid: string) =>
  fetch(`${s.host.url}/local/records/${uuid}/restore`, { method: 'POST', headers: { Authorization: `Bearer ${s.admin.token}` } });

beforeAll(async () => {
  t = await startSyntheticService(6);
});
afterAll(() => t.close());

describe('a new file after a delete', () => {
  it('the newest file deleted, then one uploaded', async () => {
    const gone = await upload(t, 1);
    await t.admin.deleteFile(gone.uuid);
    above(await upload(t, 1), gone);
  });

  it('a record with the newest file deleted, a file uploaded since, then the record restored: its file keeps its id', async () => {
    const gone = await upload(t, 2);
    await t.admin.deleteRecords([SYNTH.record(2)]);
    above(await upload(t, 3), gone);
    expect((await restore(t, SYNTH.record(2))).status).toBe(200);
    expect(fileIds(t, gone.uuid)?.internal_id).toBe(gone.internal_id);
  });
});

describe('a database from before the file mark', () => {
  it('starts it from the files it holds and those in its trash', async () => {
    const dir = tempDir('odr-file-ids-');
    const old = await startSyntheticService(3, { dataDir: dir, keepDir: true });
    const trashed = await upload(old, 2);
    await old.admin.deleteRecords([SYNTH.record(2)]);
    await old.close();
    // As the database was before version 26 (a delete then left nothing behind).
    const raw = new Database(path.join(dir, 'odr.sqlite'));
    raw.exec(`DROP TRIGGER IF EXISTS file_id_floor_delete; DROP TABLE IF EXISTS file_id_floor;
              DELETE FROM _migrations WHERE version = 26;`);
    raw.close();
    const t2 = await startService({ dataDir: dir });
    try {
      // The trash keeps a file's id, not its rid (a restore gives it a new one): only the id is
      // known to have been handed out.
      expect((await upload(t2, 1)).internal_id).toBeGreaterThan(trashed.internal_id);
      expect((await restore(t2, SYNTH.record(2))).status).toBe(200);
      expect(fileIds(t2, trashed.uuid)?.internal_id).toBe(trashed.internal_id);
    } finally {
      await t2.close();
    }
  }, 60_000);
});
