import { randomUUID } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCsv } from '../../bench/sections/csvImport.js';
import { SYNTH } from '../../bench/synthetic.js';
import { BlobStore } from '../../electron/service/domain/files/blobStore.js';
import { importCsv, openCsv } from '../../electron/service/domain/import/csvImport.js';
import { purgeExpiredRecords } from '../../electron/service/domain/records/trash.js';
import { syntheticRecord } from '../../electron/service/domain/sample/synthetic.js';
import { startService, startSyntheticService, tempDir, type TestService } from '../support/service.js';
import { withNewUuids } from '../support/otherSource.js';

// A rid or internal id this database hands out is never handed out again, whatever is deleted: the
// render cache, the change log, sync state, the trash and users' scripts remember them, and a new
// record that took a deleted one's ids would be taken for it (migrations/025_record_id_floor.ts).
// Ids an import or pull brings are the source's and are kept when no row holds them and no other
// record gave them up (migrations/028_retired_ids.ts).

const DAY = 86_400_000;
let now = new Date('2026-03-01T10:00:00Z');
let t: TestService;

interface Ids {
  rid: number;
  internal_id: number;
}
const idsOf = (s: TestService, uuid: string) =>
  s.service.ctx.db.prepare('SELECT rid, internal_id FROM records WHERE uuid = ?').get(uuid) as Ids | undefined;
const highest = (s: TestService) =>
  s.service.ctx.db.prepare('SELECT MAX(rid) AS rid, MAX(internal_id) AS internal_id FROM records').get() as Ids;
/** A new top-level record that holds the highest ids there are. */
const newest = async (s: TestService) => {
  const { record_uuid } = await s.admin.createRecord(SYNTH.dataset);
  const ids = idsOf(s, record_uuid)!;
  expect(ids).toEqual(highest(s));
  return { uuid: record_uuid, ...ids };
};
/** Both of `later`'s ids are above both of `gone`'s. */
const above = (later: Ids, gone: Ids) => {
  expect(later.rid).toBeGreaterThan(gone.rid);
  expect(later.internal_id).toBeGreaterThan(gone.internal_id);
};
const local = (s: TestService, route: string, method = 'GET') =>
  fetch(`${s.host.url}/local/${route}`, { method, headers: { Authorization: `Bearer ${s.admin.token}` } });
/** A new child under `parent`: the one with the highest rid after the save. */
const addChild = async (s: TestService, parent: string) => {
  await s.admin.save({ record_uuid: parent, records: [{ record_uuid: '', database_uuid: SYNTH.child }] });
  return s.service.ctx.db
    .prepare(
      'SELECT c.uuid, c.rid, c.internal_id FROM records c JOIN records p ON p.rid = c.parent_rid WHERE p.uuid = ? ORDER BY c.rid DESC',
    )
    .get(parent) as Ids & { uuid: string };
};

beforeAll(async () => {
  t = await startSyntheticService(3, { clock: () => now, config: { tokenTtlSeconds: 10 * 365 * 86400 } });
});
afterAll(() => t.close());

describe('a new record after a delete', () => {
  it('gets ids no deleted record had: the newest top-level record deleted', async () => {
    const gone = await newest(t);
    await t.admin.deleteRecords([gone.uuid]);
    const made = await t.admin.createRecord(SYNTH.dataset);
    above(idsOf(t, made.record_uuid)!, gone);
    expect(made.internal_id).toBeGreaterThan(gone.internal_id);
  });

  it('a child deleted, then a child added', async () => {
    const parent = await newest(t);
    const gone = await addChild(t, parent.uuid);
    expect(gone.rid).toBe(highest(t).rid);
    await t.admin.deleteRecords([gone.uuid]);
    above(await addChild(t, parent.uuid), gone);
  });

  it('a whole tree deleted with its children, then a top-level record and a child', async () => {
    const top = await newest(t);
    await addChild(t, top.uuid);
    const deepest = await addChild(t, top.uuid);
    const gone = highest(t);
    expect(deepest.rid).toBe(gone.rid);
    await t.admin.deleteRecords([top.uuid]);
    const next = await t.admin.createRecord(SYNTH.dataset);
    above(idsOf(t, next.record_uuid)!, gone);
    above(await addChild(t, next.record_uuid), gone);
  });

  it('a CSV import (the bulk writer) after a delete', async () => {
    const gone = await newest(t);
    await t.admin.deleteRecords([gone.uuid]);
    const file = path.join(t.dataDir, 'rows.csv');
    writeCsv(file, 5);
    const user = t.service.domain.users.firstSuperUser()!;
    const result = await importCsv(t.service.domain, user, await openCsv(t.service.domain, user, file, SYNTH.dataset), () => true);
    expect(result.imported).toBe(5);
    const first = t.service.ctx.db
      .prepare('SELECT MIN(rid) AS rid, MIN(internal_id) AS internal_id FROM records WHERE rid > ?')
      .get(gone.rid - 1) as Ids;
    above(first, gone);
  });

  it('a restore puts the record back at its old rid and id, though records were made since', async () => {
    const gone = await newest(t);
    await t.admin.deleteRecords([gone.uuid]);
    const since = await t.admin.createRecord(SYNTH.dataset);
    above(idsOf(t, since.record_uuid)!, gone);
    expect((await local(t, `records/${gone.uuid}/restore`, 'POST')).status).toBe(200);
    expect(idsOf(t, gone.uuid)).toEqual({ rid: gone.rid, internal_id: gone.internal_id });
    expect((await t.admin.record(gone.uuid)).internal_id).toBe(gone.internal_id);
  });

  it('the trash purged (the deleted record can no longer come back), then a record made', async () => {
    const gone = await newest(t);
    await t.admin.deleteRecords([gone.uuid]);
    now = new Date(now.getTime() + 31 * DAY);
    expect(purgeExpiredRecords(t.service.domain, new BlobStore(t.service.ctx))).toBeGreaterThan(0);
    expect(t.service.ctx.db.prepare('SELECT COUNT(*) FROM record_trash WHERE record_uuid = ?').pluck().get(gone.uuid)).toBe(0);
    const made = await t.admin.createRecord(SYNTH.dataset);
    above(idsOf(t, made.record_uuid)!, gone);
  });
});

// Ids an import or a sync pull brings are the source's (a record pulled from a lab server shows
// the server's id), so they are kept when free, even when a deleted row here had them: the floor
// guards only the ids this database makes. A restore then finds them taken and takes new ones.
describe("an import that brings a deleted record's ids", () => {
  it('takes new ones (a script holding them would read another record); the restore takes the old ones back and loses nothing', async () => {
    const db = t.service.ctx.db;
    const gone = await newest(t);
    await t.admin.save({ record_uuid: gone.uuid, fields: [{ field_uuid: SYNTH.field('Short Text'), value: 'kept through it all' }] });
    await t.admin.uploadFile(
      { dataset_uuid: SYNTH.dataset, record_uuid: gone.uuid, field_uuid: SYNTH.field('File') },
      { blob: new Blob(['the bytes']), name: 'kept.txt' },
    );
    const goneFile = db.prepare("SELECT uuid, internal_id FROM files WHERE original_name = 'kept.txt'").get() as {
      uuid: string;
      internal_id: number;
    };
    const before = await t.admin.record(gone.uuid);
    expect(JSON.stringify(before)).toContain('kept through it all');
    expect(JSON.stringify(before)).toContain(goneFile.uuid);
    await t.admin.deleteRecords([gone.uuid]);

    // Another source's record whose internal id and file id are the deleted one's.
    const rec = syntheticRecord(5);
    const uuid = randomUUID().replace(/-/g, '').slice(0, 28);
    const fileUuid = randomUUID().replace(/-/g, '').slice(0, 28);
    const fields = rec.fields as { files?: { id: number; file_uuid: string }[] }[];
    const file = fields.find((f) => f.files)!.files![0]!;
    Object.assign(file, { id: goneFile.internal_id, file_uuid: fileUuid });
    Object.assign(rec, { record_uuid: uuid, internal_id: gone.internal_id });
    await t.importJson({ count: 1, records: [rec] });
    expect(idsOf(t, uuid)!.internal_id).toBeGreaterThan(gone.internal_id);
    expect(db.prepare('SELECT internal_id FROM files WHERE uuid = ?').pluck().get(fileUuid)).toBeGreaterThan(goneFile.internal_id);

    const res = await local(t, `records/${gone.uuid}/restore`, 'POST');
    expect(res.status).toBe(200);
    expect(idsOf(t, gone.uuid)).toEqual({ rid: gone.rid, internal_id: gone.internal_id });
    expect(db.prepare('SELECT internal_id FROM files WHERE uuid = ?').pluck().get(goneFile.uuid)).toBe(goneFile.internal_id);
    // Everything as it was, ids included.
    expect(JSON.stringify(await res.json())).toBe(JSON.stringify(before));
    expect(JSON.stringify(await t.admin.record(gone.uuid))).toBe(JSON.stringify(before));
  });
});

describe('the mark across a restart', () => {
  it('a record deleted before the service stops, one made after it starts again', async () => {
    const dir = tempDir('odr-ids-');
    const first = await startSyntheticService(3, { dataDir: dir, keepDir: true });
    const gone = await newest(first);
    await first.admin.deleteRecords([gone.uuid]);
    await first.close();
    const second = await startService({ dataDir: dir });
    try {
      const made = await second.admin.createRecord(SYNTH.dataset);
      above(idsOf(second, made.record_uuid)!, gone);
    } finally {
      await second.close();
    }
  }, 60_000);
});

/** A closed data dir whose newest record is in the trash, its database open raw to set it back. */
async function newestTrashed() {
  const dir = tempDir('odr-ids-');
  const old = await startSyntheticService(3, { dataDir: dir, keepDir: true });
  const trashed = await newest(old);
  await old.admin.deleteRecords([trashed.uuid]);
  await old.close();
  return { dir, trashed, raw: new Database(path.join(dir, 'odr.sqlite')) };
}

/** Sets a database back to before version 28: its retired-id triggers and table gone. */
function asBefore28(raw: Database.Database): void {
  const triggers = raw
    .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%\\_retired\\_%' ESCAPE '\\'")
    .pluck()
    .all() as string[];
  expect(triggers.length).toBeGreaterThan(0);
  raw.exec(`${triggers.map((n) => `DROP TRIGGER ${n};`).join('\n')}
            DROP TABLE retired_ids; DELETE FROM _migrations WHERE version = 28;`);
}

describe('a database from before the mark', () => {
  it('starts it from the records it holds and those in its trash', async () => {
    const { dir, trashed, raw } = await newestTrashed();
    // As the database was before version 25 (what a delete did then: the rows gone, nothing kept).
    raw.exec(`DROP TRIGGER IF EXISTS record_id_floor_delete; DROP TABLE IF EXISTS record_id_floor;
              DELETE FROM _migrations WHERE version = 25;`);
    raw.close();
    const t2 = await startService({ dataDir: dir });
    try {
      // The trashed record held the highest ids: a new record must not take them...
      const made = await t2.admin.createRecord(SYNTH.dataset);
      above(idsOf(t2, made.record_uuid)!, trashed);
      // ...so its restore brings it back at them.
      expect((await local(t2, `records/${trashed.uuid}/restore`, 'POST')).status).toBe(200);
      expect(idsOf(t2, trashed.uuid)).toEqual({ rid: trashed.rid, internal_id: trashed.internal_id });
    } finally {
      await t2.close();
    }
  }, 60_000);
});

describe('a database from before the retired ids', () => {
  it('keeps the ids of the records in its trash from an import that brings them for another record', async () => {
    const { dir, trashed, raw } = await newestTrashed();
    // As the database was before version 28: no record of retired ids.
    asBefore28(raw);
    raw.close();
    const t2 = await startService({ dataDir: dir });
    try {
      const rec = syntheticRecord(7);
      const uuid = randomUUID().replace(/-/g, '').slice(0, 28);
      Object.assign(rec, { record_uuid: uuid, internal_id: trashed.internal_id });
      await t2.importJson({ count: 1, records: [rec] });
      expect(idsOf(t2, uuid)!.internal_id).toBeGreaterThan(trashed.internal_id);
      expect((await local(t2, `records/${trashed.uuid}/restore`, 'POST')).status).toBe(200);
      expect(idsOf(t2, trashed.uuid)).toEqual({ rid: trashed.rid, internal_id: trashed.internal_id });
    } finally {
      await t2.close();
    }
  }, 60_000);
});

/** Every id of a dataset's tree in the schema tables, by table, sorted. */
const schemaIdsOf = (s: TestService, uuid: string) => {
  const tree = `WITH RECURSIVE dt(id) AS (SELECT id FROM datatypes WHERE uuid = $uuid
                  UNION ALL SELECT d.id FROM datatypes d JOIN dt ON d.parent_id = dt.id),
                df(id) AS (SELECT id FROM datafields WHERE datatype_id IN dt)`;
  const ids = (from: string) => s.service.ctx.db.prepare(`${tree} SELECT id FROM ${from} ORDER BY id`).pluck().all({ uuid }) as number[];
  return {
    datatypes: ids('dt'),
    datafields: ids('df'),
    radio_options: ids('radio_options WHERE datafield_id IN df'),
    tags: ids('tags WHERE datafield_id IN df'),
  };
};

describe('a database from before the retired ids, with a dataset in its trash', () => {
  it("keeps that dataset's ids from imports that bring them for other rows; its restore takes them back", async () => {
    const dir = tempDir('odr-ids-');
    const old = await startSyntheticService(1, { dataDir: dir, keepDir: true });
    // A dataset of its own, cloned from the synthetic one (the highest schema ids), with a record
    // (the highest internal id), deleted to the trash.
    const name = 'Trashed before the retired ids';
    expect((await old.admin.send('POST', '/dataset', { form: { template_uuid: SYNTH.dataset, dataset_name: name } })).status).toBe(200);
    const ds = old.service.domain
      .schema()
      .topLevel()
      .find((dt) => dt.name === name)!.uuid;
    const gone = await old.admin.createRecord(ds);
    const goneIds = idsOf(old, gone.record_uuid)!;
    const schema = schemaIdsOf(old, ds);
    const tpl = JSON.stringify(await old.admin.template(ds));
    expect((await old.admin.send('DELETE', `/dataset/${ds}`)).status).toBe(200);
    await old.close();
    // As the database was before version 28: no record of retired ids, nor of this start-up step.
    const raw = new Database(path.join(dir, 'odr.sqlite'));
    asBefore28(raw);
    raw.exec("DELETE FROM meta WHERE key = 'retired_ids.dataset_trash';");
    raw.close();

    const t2 = await startService({ dataDir: dir });
    try {
      // Another source's template with the same ids (every uuid new, the ids as they were).
      const other = withNewUuids(tpl, 'e8');
      await t2.importJson(other);
      const taken = schemaIdsOf(t2, other.template_uuid);
      for (const table of ['datatypes', 'datafields', 'tags'] as const)
        expect(Math.min(...taken[table]), table).toBeGreaterThan(Math.max(...schema[table]));
      // A record from elsewhere bringing the trashed record's internal id.
      const rec = syntheticRecord(0);
      const uuid = `e7${'0'.repeat(26)}`;
      Object.assign(rec, { record_uuid: uuid, internal_id: goneIds.internal_id, records: [] });
      await t2.importJson({ count: 1, records: [rec] });
      expect(idsOf(t2, uuid)!.internal_id).toBeGreaterThan(goneIds.internal_id);

      const trash = (await (await local(t2, 'trash')).json()) as { datasets: { id: string; dataset_uuid: string }[] };
      const entry = trash.datasets.find((e) => e.dataset_uuid === ds)!;
      expect((await local(t2, `trash/${entry.id}/restore`, 'POST')).status).toBe(200);
      expect(schemaIdsOf(t2, ds)).toEqual(schema);
      expect(idsOf(t2, gone.record_uuid)!.internal_id).toBe(goneIds.internal_id);
    } finally {
      await t2.close();
    }
  }, 60_000);
});
