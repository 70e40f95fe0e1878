import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../support/service.js';

// What the export form does not carry about a file (its mime type, its source href, its bytes'
// hash and creator) comes back exactly after every kind of restore: a top-level record, a child
// record and a whole dataset; and entries written before the trash kept the mime type get it
// from the file name.

const u = (tag: string, n: number) => `${tag}${String(n).padStart(31 - tag.length, '0')}`.padEnd(32, '0');
const TOP = u('d0', 1);
const CHILD_DS = u('d1', 1);
const F = { title: u('f0', 1), file: u('f0', 2), childFile: u('f1', 1) };
const STAMP = '2026-02-01 10:00:00';
const meta = { _create_date: STAMP, _update_date: STAMP, _create_auth: 'Test', _public_date: STAMP };
const REMOTE_HREF = (i: number) => `https://odr.example.org/files/remote${i}.pdf`;
const parentOf = (i: number) => u('e0', i);
const childOf = (i: number) => u('e1', i);
/** Parent `i` (a file with a remote href only) with one child; each gets a PDF uploaded below. */
const tree = (i: number) => ({
  database_uuid: TOP,
  internal_id: 70_000 + i,
  record_name: `P${i}`,
  record_uuid: parentOf(i),
  template_uuid: '',
  metadata_for_uuid: '',
  _record_metadata: meta,
  fields: [
    { field_uuid: F.title, field_name: 'Title', template_field_uuid: null, id: 1, value: `P${i}` },
    {
      field_uuid: F.file,
      field_name: 'File',
      template_field_uuid: null,
      id: 2,
      files: [{ id: 90_000 + i, file_uuid: u('c0', i), href: REMOTE_HREF(i), original_name: `remote${i}.pdf` }],
    },
  ],
  records: [
    {
      database_uuid: CHILD_DS,
      internal_id: 80_000 + i,
      record_name: `C${i}`,
      record_uuid: childOf(i),
      template_uuid: '',
      metadata_for_uuid: '',
      _record_metadata: meta,
      fields: [{ field_uuid: F.childFile, field_name: 'Child file', template_field_uuid: null, id: 3, files: [] }],
      records: [],
    },
  ],
});

let t: TestService;
/** Every restore below must give back exactly this. */
let initial: Awaited<ReturnType<typeof facts>>;
const local = (p: string) => t.api.replace(/\/api\/v4$/, `/local${p}`);
const post = (p: string) => fetch(local(p), { method: 'POST', headers: { Authorization: `Bearer ${t.admin.token}` } });
const pdf = (i: number) => new Blob([`%PDF-1.4\n% document ${i}\n%%EOF\n`], { type: 'application/pdf' });

/** Every file row's facts the export form lacks, by uuid. */
const fileRows = () =>
  t.service.ctx.db
    .prepare('SELECT uuid, original_name, created_by, content_hash, source_href, mime FROM files WHERE parent_rid IS NULL ORDER BY uuid')
    .all() as { uuid: string; content_hash: string | null; source_href: string | null; mime: string | null }[];
/** GET /file's Content-Type of every file with bytes. */
const contentTypes = async () => {
  const out: Record<string, string | null> = {};
  for (const f of fileRows().filter((r) => r.content_hash)) {
    const res = await t.admin.send('GET', `/file/${f.uuid}`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    out[f.uuid] = res.headers.get('content-type');
  }
  return out;
};
const facts = async () => ({ rows: fileRows(), types: await contentTypes() });
/** Makes a record trash entry look as written before migration 021: [created_by, hash] per file. */
const asOldRecordEntry = (uuid: string) =>
  t.service.ctx.db
    .prepare(
      `UPDATE record_trash SET files = (SELECT json_group_object(j.key, json_array(j.value ->> '$[0]', j.value ->> '$[1]'))
       FROM json_each(record_trash.files) j) WHERE record_uuid = ?`,
    )
    .run(uuid);

beforeAll(async () => {
  t = await startService();
  await t.importJson({ count: 4, records: [1, 2, 3, 4].map(tree) });
  for (const i of [1, 2, 3, 4]) {
    await t.admin.uploadFile({ dataset_uuid: TOP, record_uuid: parentOf(i), field_uuid: F.file }, { blob: pdf(i), name: `top${i}.pdf` });
    await t.admin.uploadFile(
      { dataset_uuid: CHILD_DS, record_uuid: childOf(i), field_uuid: F.childFile },
      { blob: pdf(10 + i), name: `child${i}.pdf` },
    );
  }
});
afterAll(() => t.close());

describe("a restore gives back every file's mime type and source href", () => {
  it('the facts are there to lose: uploaded PDFs are served as PDF, imported files keep their href', async () => {
    initial = await facts();
    const { rows, types } = initial;
    expect(rows.filter((r) => r.mime === 'application/pdf').length).toBe(8);
    expect(rows.filter((r) => r.source_href?.startsWith('https://odr.example.org/')).length).toBe(4);
    expect(Object.values(types)).toEqual(Array(8).fill('application/pdf'));
  });

  it('of a top-level record', async () => {
    const before = initial;
    await t.admin.deleteRecords([parentOf(1)]);
    expect((await post(`/records/${parentOf(1)}/restore`)).status).toBe(200);
    expect(await facts()).toEqual(before);
  });

  it('of a child record', async () => {
    const before = initial;
    await t.admin.deleteRecords([childOf(2)]);
    expect((await post(`/records/${childOf(2)}/restore`)).status).toBe(200);
    expect(await facts()).toEqual(before);
  });

  it('of a record trash entry written before it kept mime types: named from the file name', async () => {
    const before = initial;
    await t.admin.deleteRecords([childOf(3), parentOf(4)]);
    asOldRecordEntry(childOf(3));
    asOldRecordEntry(parentOf(4));
    expect((await post(`/records/${childOf(3)}/restore`)).status).toBe(200);
    expect((await post(`/records/${parentOf(4)}/restore`)).status).toBe(200);
    const after = await facts();
    expect(after.types).toEqual(before.types);
    expect(after.rows.map((r) => [r.uuid, r.mime])).toEqual(before.rows.map((r) => [r.uuid, r.mime]));
  });

  it('of a dataset, and of a dataset trash entry written before it kept them', async () => {
    // Taken now: the old record entries above could not give back the uploads' (null) source href.
    const before = await facts();
    for (const old of [false, true]) {
      expect((await t.admin.send('DELETE', `/dataset/${TOP}`)).status).toBe(200);
      expect(fileRows()).toEqual([]);
      const trashDir = path.join(t.dataDir, 'trash');
      const [id] = readdirSync(trashDir);
      if (old) {
        // As written before: [created_by, content_hash] per file.
        const metaPath = path.join(trashDir, id!, 'meta.json');
        const m = JSON.parse(readFileSync(metaPath, 'utf8')) as { files: Record<string, unknown[]> };
        m.files = Object.fromEntries(Object.entries(m.files).map(([k, v]) => [k, v.slice(0, 2)]));
        writeFileSync(metaPath, JSON.stringify(m));
      }
      expect((await post(`/trash/${id}/restore`)).status).toBe(200);
      const after = await facts();
      if (old) {
        expect(after.types, 'old entry').toEqual(before.types);
        expect(after.rows.map((r) => [r.uuid, r.mime])).toEqual(before.rows.map((r) => [r.uuid, r.mime]));
      } else expect(after).toEqual(before);
    }
  });
});
