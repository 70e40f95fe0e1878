import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { startService, startSyntheticService, tempDir, type TestService } from '../support/service.js';
import { withNewUuids } from '../support/otherSource.js';

// A datatype's, field's, option's, tag's and saved search's id, once handed out, is never handed
// out again, as a record's (recordIds.test.ts): users and scripts see them in record JSON and
// templates and name them in API paths (migrations/027_id_floors.ts).

const SCHEMA = ['datatypes', 'datafields', 'radio_options', 'tags'] as const;
type Range = { min: number; max: number };
type Ids = Record<(typeof SCHEMA)[number], Range>;

let t: TestService;
let made = 0;

const local = async (s: TestService, method: string, route: string, body?: unknown) => {
  const res = await fetch(`${s.host.url}/local${route}`, {
    method,
    headers: { Authorization: `Bearer ${s.admin.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** The lowest and highest id of each schema table over a dataset's tree. */
const idsOf = (s: TestService, uuid: string): Ids => {
  const tree = `WITH RECURSIVE dt(id) AS (SELECT id FROM datatypes WHERE uuid = $uuid
                  UNION ALL SELECT d.id FROM datatypes d JOIN dt ON d.parent_id = dt.id),
                df(id) AS (SELECT id FROM datafields WHERE datatype_id IN dt)`;
  const range = (from: string) =>
    s.service.ctx.db.prepare(`${tree} SELECT min(id) AS min, max(id) AS max FROM ${from}`).get({ uuid }) as Range;
  return {
    datatypes: range('dt'),
    datafields: range('df'),
    radio_options: range('radio_options WHERE datafield_id IN df'),
    tags: range('tags WHERE datafield_id IN df'),
  };
};
/** Every radio option of a dataset's tree: field uuid, option uuid, id, sorted. */
const optionIdsOf = (s: TestService, uuid: string) =>
  s.service.ctx.db
    .prepare(
      `WITH RECURSIVE dt(id) AS (SELECT id FROM datatypes WHERE uuid = ? UNION ALL SELECT d.id FROM datatypes d JOIN dt ON d.parent_id = dt.id)
       SELECT f.uuid AS field, o.uuid AS option, o.id FROM radio_options o JOIN datafields f ON f.id = o.datafield_id
       WHERE f.datatype_id IN dt ORDER BY f.uuid, o.uuid`,
    )
    .all(uuid);
const highest = (s: TestService, table: string) => s.service.ctx.db.prepare(`SELECT MAX(id) FROM ${table}`).pluck().get() as number;

/** A new dataset cloned from the synthetic one; it holds the highest ids of every schema table. */
const newDataset = async (s: TestService) => {
  const name = `Ids ${++made}`;
  const res = await s.admin.send('POST', '/dataset', { form: { template_uuid: SYNTH.dataset, dataset_name: name } });
  expect(res.status).toBe(200);
  const uuid = s.service.domain
    .schema()
    .topLevel()
    .find((dt) => dt.name === name)!.uuid;
  const ids = idsOf(s, uuid);
  for (const table of SCHEMA) expect(ids[table].max, table).toBe(highest(s, table));
  return { uuid, ids, options: optionIdsOf(s, uuid) };
};
const deleteDataset = async (s: TestService, uuid: string) => expect((await s.admin.send('DELETE', `/dataset/${uuid}`)).status).toBe(200);
/** Every id `later` has is above every id `gone` had, table by table. */
const above = (later: Ids, gone: Ids) => {
  for (const table of SCHEMA) expect(later[table].min, table).toBeGreaterThan(gone[table].max);
};

beforeAll(async () => {
  t = await startSyntheticService(2);
});
afterAll(() => t.close());

describe('schema ids after a delete', () => {
  it('a dataset made after the newest one is deleted gets new ids; a restore from the trash gets the old ones back', async () => {
    const gone = await newDataset(t);
    await deleteDataset(t, gone.uuid);
    const next = await newDataset(t);
    above(next.ids, gone.ids);
    const trash = await local(t, 'GET', '/trash');
    const entry = (trash.body.datasets as { id: string; dataset_uuid: string }[]).find((e) => e.dataset_uuid === gone.uuid)!;
    expect((await local(t, 'POST', `/trash/${entry.id}/restore`)).status).toBe(200);
    expect(idsOf(t, gone.uuid)).toEqual(gone.ids);
    // Each option by its uuids: ODR template exports carry no option ids, and this dataset has no
    // records to select one, so the trash keeps them beside the export.
    expect(optionIdsOf(t, gone.uuid)).toEqual(gone.options);
  });

  it("a template import bringing a deleted dataset's datatype, field and tag ids takes new ones; the trash's restore takes them back", async () => {
    const gone = await newDataset(t);
    const tpl = JSON.stringify(await t.admin.template(gone.uuid));
    await deleteDataset(t, gone.uuid);
    // Another source's template with the same ids (every uuid new, the ids as they were).
    const other = withNewUuids(tpl, 'e9');
    await t.importJson(other);
    const taken = idsOf(t, other.template_uuid);
    for (const table of ['datatypes', 'datafields', 'tags'] as const) expect(taken[table].min, table).toBeGreaterThan(gone.ids[table].max);
    const trash = await local(t, 'GET', '/trash');
    const entry = (trash.body.datasets as { id: string; dataset_uuid: string }[]).find((e) => e.dataset_uuid === gone.uuid)!;
    expect((await local(t, 'POST', `/trash/${entry.id}/restore`)).status).toBe(200);
    expect(idsOf(t, gone.uuid)).toEqual(gone.ids);
  });

  it('an option and a tag created by name in a save, after the dataset holding the newest is deleted', async () => {
    const gone = await newDataset(t);
    await deleteDataset(t, gone.uuid);
    const res = await fetch(`${t.api}/dataset/record`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        record_uuid: SYNTH.record(0),
        fields: [
          { field_uuid: SYNTH.field('Multiple Select'), values: [{ template_radio_option_uuid: 'Olivine' }] },
          { field_uuid: SYNTH.field('Tags'), tags: [{ template_tag_uuid: 'Gneiss' }] },
        ],
      }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const db = t.service.ctx.db;
    const option = db.prepare("SELECT id FROM radio_options WHERE name = 'Olivine'").pluck().get() as number;
    const tag = db.prepare("SELECT id FROM tags WHERE name = 'Gneiss'").pluck().get() as number;
    expect(option).toBeGreaterThan(gone.ids.radio_options.max);
    expect(tag).toBeGreaterThan(gone.ids.tags.max);
  });

  it('a saved search made after the newest one is deleted', async () => {
    const route = `/datasets/${SYNTH.dataset}/saved-searches`;
    await local(t, 'POST', route, { name: 'kept', view: {} });
    const gone = (await local(t, 'POST', route, { name: 'gone', view: {} })).body.id as number;
    expect(gone).toBe(highest(t, 'saved_searches'));
    expect((await local(t, 'DELETE', `/saved-searches/${gone}`)).status).toBe(200);
    const next = (await local(t, 'POST', route, { name: 'next', view: {} })).body.id as number;
    expect(next).toBeGreaterThan(gone);
  });
});

describe('schema ids across a restart', () => {
  it('a dataset deleted before the service stops, one made after it starts again', async () => {
    const dir = tempDir('odr-ids-');
    const first = await startSyntheticService(1, { dataDir: dir, keepDir: true });
    const gone = await newDataset(first);
    await deleteDataset(first, gone.uuid);
    await first.close();
    const second = await startService({ dataDir: dir });
    try {
      above((await newDataset(second)).ids, gone.ids);
    } finally {
      await second.close();
    }
  }, 60_000);
});

describe('a database from before the floors', () => {
  it('starts each floor at the ids it holds; a delete after the upgrade leaves its ids unused', async () => {
    const dir = tempDir('odr-ids-');
    const old = await startSyntheticService(1, { dataDir: dir, keepDir: true });
    const gone = await newDataset(old);
    await old.close();
    // As the database was before version 27: no floors, no triggers.
    const raw = new Database(path.join(dir, 'odr.sqlite'));
    const triggers = raw
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%\\_id\\_floor\\_%' ESCAPE '\\' AND tbl_name != 'records' AND tbl_name != 'files'",
      )
      .pluck()
      .all() as string[];
    raw.exec(`${triggers.map((n) => `DROP TRIGGER ${n};`).join('\n')}
              DROP TABLE IF EXISTS id_floor; DELETE FROM _migrations WHERE version = 27;`);
    raw.close();
    const t2 = await startService({ dataDir: dir });
    try {
      await deleteDataset(t2, gone.uuid);
      above((await newDataset(t2)).ids, gone.ids);
    } finally {
      await t2.close();
    }
  }, 60_000);
});
