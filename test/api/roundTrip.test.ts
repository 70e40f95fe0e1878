import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { importFile } from '../../electron/service/domain/import/importFile.js';
import type { DatatypeInfo } from '../../electron/service/domain/schemaCache.js';
import { fixture, haveFixtures, FIXTURES } from '../support/fixtures.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// Read-modify-write as published clients do it (issue 11 item 2): every record GET returns —
// every field type, files, images with their thumbnails, child records, tags, legacy uuids —
// POSTed back unchanged to /dataset/record answers 200 and reads back the same apart from
// `_update_date`. Over every record of the synthetic sample and of every real ODR fixture
// (template-only fixtures get records with a value in every field, one child per child
// datatype), before and after uploads.

const FIXTURE_FILES = ['chemin_template.json', 'chemin_data.json', 'rruff_imalist_template.json', 'ahed_metadata_template.json'];

let t: TestService;
let topDatasets: string[] = [];

async function api(method: string, path: string, json?: unknown) {
  const res = await fetch(`${t.api}${path}`, {
    method,
    headers: { Authorization: `Bearer ${t.admin.token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  return { status: res.status, text, json: text.startsWith('{') ? JSON.parse(text) : undefined };
}

/** A save filling every field of `dt` (and one child per child datatype, two levels down). */
function filled(dt: DatatypeInfo, depth: number, i: number): Record<string, unknown> {
  const fields: Record<string, unknown>[] = [];
  for (const f of dt.fields) {
    const s = f.type.storage;
    if (s === 'options' && f.options.length)
      fields.push({ field_uuid: f.uuid, values: [{ template_radio_option_uuid: f.options[i % f.options.length]!.uuid }] });
    else if (s === 'tags' && f.tags.length) {
      // A leaf: the save selects its ancestors too.
      let tag = f.tags[i % f.tags.length]!;
      while (tag.children.length) tag = tag.children[0]!;
      fields.push({ field_uuid: f.uuid, tags: [{ template_tag_uuid: tag.uuid }] });
    } else if (s === 'integer') fields.push({ field_uuid: f.uuid, value: 40 + i });
    else if (s === 'decimal') fields.push({ field_uuid: f.uuid, value: `${i}.25` });
    else if (s === 'datetime') fields.push({ field_uuid: f.uuid, value: '2021-03-04' });
    else if (s === 'boolean') fields.push({ field_uuid: f.uuid, selected: i % 2 });
    else if (s === 'text') fields.push({ field_uuid: f.uuid, value: `v${i} ${f.name}`.slice(0, 30) });
  }
  return {
    fields,
    records: depth >= 2 ? [] : dt.children.map((c) => ({ record_uuid: '', database_uuid: c.uuid, ...filled(c, depth + 1, i) })),
  };
}

/** The record as read, minus what a save may legitimately move: `_update_date`. */
function comparable(rec: unknown): unknown {
  return JSON.parse(JSON.stringify(rec), (k, v) => (k === '_update_date' || k === '_updated_date' ? undefined : v));
}

async function allRecords(): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const ds of topDatasets) {
    const r = await api('GET', `/dataset/${ds}/10000/0`);
    expect(r.status, r.text).toBe(200);
    out.push(...r.json.records);
  }
  return out;
}

async function roundTripAll(): Promise<{ checked: number; failures: string[] }> {
  const failures: string[] = [];
  const records = await allRecords();
  const stamps = t.service.ctx.db.prepare('SELECT MAX(seq) FROM change_log').pluck();
  for (const rec of records as { record_uuid: string }[]) {
    const logBefore = stamps.get();
    const saved = await api('POST', '/dataset/record', rec);
    if (saved.status !== 200) {
      failures.push(`${rec.record_uuid}: ${saved.status} ${saved.text.slice(0, 200)}`);
      continue;
    }
    const after = await api('GET', `/dataset/record/${rec.record_uuid}`);
    const a = JSON.stringify(comparable(after.json));
    const b = JSON.stringify(comparable(rec));
    if (a !== b) failures.push(`${rec.record_uuid}: reads back differently\n  before ${b.slice(0, 300)}\n  after  ${a.slice(0, 300)}`);
    if (stamps.get() !== logBefore) failures.push(`${rec.record_uuid}: an unchanged save wrote to the change log`);
  }
  return { checked: records.length, failures };
}

async function png(w: number, h: number, seed: number) {
  return sharp({ create: { width: w, height: h, channels: 3, background: { r: seed % 255, g: 60, b: 90 } } })
    .png()
    .toBuffer();
}

beforeAll(async () => {
  t = await startSyntheticService(40);
  const d = t.service.domain;
  const admin = d.users.firstSuperUser()!;
  if (haveFixtures) {
    for (const f of FIXTURE_FILES) await importFile(d, admin, fixture(f));
  } else {
    console.log(`SKIPPED real-fixture round trips: reference fixtures not found at ${FIXTURES}`);
  }
  topDatasets = [...d.schema().datatypesByUuid.values()].filter((dt) => dt.parentId === null).map((dt) => dt.uuid);
  // Template-only fixtures have no records: give each dataset two filled ones (and the others one).
  for (const dt of [...d.schema().datatypesByUuid.values()].filter((x) => x.parentId === null)) {
    for (let i = 0; i < 2; i++) {
      const created = await t.admin.createRecord(dt.uuid);
      const r = await api('POST', '/dataset/record', { record_uuid: created.record_uuid, ...filled(dt, 0, i) });
      expect(r.status, `${dt.name}: ${r.text}`).toBe(200);
    }
  }
  // A tag selected alone through PUT (no cascade, docs/odr-server.md §4.3), its parent not selected.
  const tags = SYNTH.field('Tags');
  for (const tag of [SYNTH.tag(1), SYNTH.tag(2), SYNTH.tag(3)]) await api('PUT', `/record/${SYNTH.record(2)}/${tags}/${tag}/unselected`);
  expect((await api('PUT', `/record/${SYNTH.record(2)}/${tags}/${SYNTH.tag(8)}/selected`)).status).toBe(200);
}, 120_000);
afterAll(() => t.close());

describe('GET → POST /dataset/record round trip', () => {
  it('every record of every dataset saves back unchanged (before uploads)', async () => {
    const { checked, failures } = await roundTripAll();
    expect(checked).toBeGreaterThan(40);
    expect(failures).toEqual([]);
  });

  it('…and after files and images (with thumbnails) were uploaded, on top-level and child records', async () => {
    const d = t.service.domain;
    let n = 0;
    for (const dt of d.schema().datatypesByUuid.values()) {
      const fileFields = dt.fields.filter((f) => f.type.storage === 'files');
      if (!fileFields.length) continue;
      const rec = t.service.ctx.db.prepare('SELECT uuid FROM records WHERE datatype_id = ? ORDER BY rid LIMIT 1').pluck().get(dt.id) as
        string | undefined;
      if (!rec) continue;
      for (const f of fileFields) {
        const isImage = f.type.name === 'Image';
        const blob = isImage ? new Blob([await png(900 + n, 600, n)]) : new Blob([`file ${n}`]);
        await t.admin.uploadFile(
          { dataset_uuid: dt.uuid, record_uuid: rec, field_uuid: f.uuid },
          { blob, name: isImage ? `img${n}.png` : `data${n}.csv` },
        );
        n++;
      }
    }
    expect(n).toBeGreaterThan(2);
    const { failures } = await roundTripAll();
    expect(failures).toEqual([]);
  });

  it('a changed value in a round-tripped record with images is saved', async () => {
    const rec = (await api('GET', `/dataset/record/${SYNTH.record(1)}`)).json;
    const text = rec.fields.find((f: { field_uuid: string }) => f.field_uuid === SYNTH.field('Long Text'));
    text.value = 'changed by a client';
    expect((await api('POST', '/dataset/record', rec)).status).toBe(200);
    const back = (await api('GET', `/dataset/record/${SYNTH.record(1)}`)).json;
    expect(back.fields.find((f: { field_uuid: string }) => f.field_uuid === SYNTH.field('Long Text')).value).toBe('changed by a client');
  });
});
