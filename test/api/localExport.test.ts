import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH, syntheticTemplate } from '../../bench/synthetic.js';
import { importFile } from '../../electron/service/domain/import/importFile.js';
import type { TrackedJob } from '../../shared/schemas/job.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { ExportResult, type ExportRequest } from '../../shared/schemas/view.js';
import { USER, startService, startSyntheticService, type TestService } from '../support/service.js';
import { unzip } from '../support/unzip.js';

// Export of the list's view over real HTTP: the job runs to its end, the file downloads, and its
// content is read back — the CSV parsed, the JSON imported into a second service.

const N = 45;
let t: TestService;
let userToken: string;
beforeAll(async () => {
  t = await startSyntheticService(N);
  userToken = (await t.loginAs(USER.email, USER.password)).token!;
});
afterAll(() => t.close());

const auth = (token: string | null): Record<string, string> => (token ? { Authorization: `Bearer ${token}` } : {});
async function post(body: unknown, token: string | null = t.admin.token!) {
  const res = await fetch(`${t.host.url}/local/datasets/${SYNTH.dataset}/export`, {
    method: 'POST',
    headers: { ...auth(token), 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as TrackedJob & { error?: { code: number; message: string } } };
}

/** Waits on the event stream for the job's final state (no polling, no sleeps). */
async function finished(id: number, token = t.admin.token!): Promise<TrackedJob> {
  const ctl = new AbortController();
  const res = await fetch(`${t.host.url}/local/events?access_token=${token}`, { signal: ctl.signal });
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  // The job may have ended before the stream opened: ask once after subscribing.
  const known = ((await (await fetch(`${t.host.url}/local/jobs`, { headers: auth(token) })).json()) as { jobs: TrackedJob[] }).jobs.find(
    (j) => j.id === id,
  );
  if (known && known.state !== 'running') {
    ctl.abort();
    return known;
  }
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('event stream closed');
    buf += dec.decode(value);
    for (const m of buf.matchAll(/event: job\ndata: (.*)\n/g)) {
      const j = JSON.parse(m[1]!) as TrackedJob;
      if (j.id === id && j.state !== 'running') {
        ctl.abort();
        return j;
      }
    }
  }
}

async function run(req: Partial<ExportRequest>, token = t.admin.token!) {
  const started = await post(req, token);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  expect(started.body.job_type).toBe('export');
  const job = await finished(started.body.id, token);
  expect(job.state, job.error ?? '').toBe('complete');
  const result = ExportResult.parse(job.additional_data);
  const res = await fetch(`${t.host.url}${result.download}`, { headers: auth(token) });
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(bytes.length).toBe(result.bytes);
  return { job, result, bytes, res };
}

const field = (r: OdrRecord, f: string) => r.fields.find((x) => x.field_uuid === f);

describe('POST /local/datasets/{uuid}/export', () => {
  it('CSV of the view: its filters, search, sort and columns; parses back to the values shown', async () => {
    const int = SYNTH.field('Integer');
    const cols = [int, SYNTH.field('Multiple Select'), SYNTH.field('Tags'), SYNTH.field('Boolean'), SYNTH.field('File')];
    const view = { filters: [{ kind: 'range' as const, field: int, min: '0' }], sort: int, dir: 'desc' as const };
    const { bytes, res, result } = await run({ format: 'csv', view, columns: cols });
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toMatch(/attachment; filename="Synthetic Samples-\d{12}\.csv"/);
    const parsed = Papa.parse<string[]>(bytes.toString('utf8').replace(/^\uFEFF/, ''), { skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    const [head, ...rows] = parsed.data;
    expect(head).toEqual([
      'record_uuid',
      'internal_id',
      'name',
      'Integer field',
      'Multiple Select field',
      'Tags field',
      'Boolean field',
      'File field',
    ]);
    // The same view through the list route: same records, same order.
    const list = await fetch(
      `${t.host.url}/local/datasets/${SYNTH.dataset}/records?limit=500&sort=${int}&dir=desc&filters=${encodeURIComponent(JSON.stringify(view.filters))}`,
      { headers: auth(t.admin.token!) },
    );
    const recs = ((await list.json()) as { records: OdrRecord[] }).records;
    expect(recs.length).toBeGreaterThan(5);
    expect(result.records).toBe(recs.length);
    expect(rows.map((r) => r[0])).toEqual(recs.map((r) => r.record_uuid));
    recs.forEach((rec, i) => {
      const row = rows[i]!;
      expect(row[1]).toBe(String(rec.internal_id));
      expect(row[2]).toBe(String(rec.record_name));
      expect(row[3]).toBe(String(field(rec, int)?.value));
      expect(row[4]).toBe((field(rec, cols[1]!)?.values ?? []).map((v) => v.name).join('; '));
      expect(row[5]!.split('; ').sort()).toEqual((field(rec, cols[2]!)?.tags ?? []).map((v) => v.name).sort());
      expect(row[6]).toBe(String(field(rec, cols[3]!)?.selected ?? ''));
      expect(row[7]).toBe((field(rec, cols[4]!)?.files ?? []).map((f) => f.original_name).join('; '));
    });
  });

  it('JSON in the ODR record-list shape, which our importer reads back into another service', async () => {
    const { bytes, result, res } = await run({ format: 'json', view: { filters: [{ kind: 'public', public: false }] } });
    expect(res.headers.get('content-type')).toContain('application/json');
    const list = JSON.parse(bytes.toString('utf8')) as { count: number; records: OdrRecord[] };
    const privates = Array.from({ length: N }, (_, i) => i).filter((i) => i % 3 === 0);
    expect(list.count).toBe(privates.length);
    expect(result.records).toBe(privates.length);
    expect(list.records.map((r) => r.record_uuid)).toEqual(privates.map((i) => SYNTH.record(i)));
    expect(list.records[0]).toEqual(await t.admin.record(SYNTH.record(0)));

    const other = await startService();
    try {
      await other.importJson(syntheticTemplate());
      const file = path.join(other.dataDir, 'export.json');
      writeFileSync(file, bytes);
      await importFile(other.service.domain, other.service.domain.users.firstSuperUser()!, file);
      for (const i of privates.slice(0, 5)) {
        const a = await t.admin.record(SYNTH.record(i));
        const b = await other.admin.record(SYNTH.record(i));
        expect(b.fields.map((f) => [f.field_uuid, f.value ?? null, f.values?.map((v) => v.name), f.tags?.map((x) => x.name)])).toEqual(
          a.fields.map((f) => [f.field_uuid, f.value ?? null, f.values?.map((v) => v.name), f.tags?.map((x) => x.name)]),
        );
        expect(b.records.length).toBe(a.records.length);
      }
    } finally {
      await other.close();
    }
  });

  it('a zip with the export and the files: bytes stored here, the rest listed as missing', async () => {
    const rec = SYNTH.record(1);
    const content = Buffer.from('x,y\n1,2\n3,4\n');
    await t.admin.uploadFile(
      { dataset_uuid: SYNTH.dataset, record_uuid: rec, field_uuid: SYNTH.field('File') },
      { blob: new Blob([content]), name: 'pattern.csv' },
    );
    const { bytes, result, res } = await run({
      format: 'csv',
      view: { q: 'S-00000' }, // S-000000 … S-000009
      columns: [SYNTH.field('File')],
      files: true,
    });
    expect(res.headers.get('content-type')).toBe('application/zip');
    const entries = await unzip(bytes);
    expect([...entries.keys()].sort()).toEqual(['files/500001/pattern.csv', 'missing-files.txt', 'records.csv']);
    expect(entries.get('files/500001/pattern.csv')).toEqual(content);
    // Records 0 and 5 carry imported file metadata without bytes.
    expect(entries.get('missing-files.txt')!.toString()).toMatch(/files\/500000\/spectrum-0\.csv\tnot on this computer[^]*spectrum-5\.csv/);
    expect(result).toMatchObject({ records: 10, files: 1, missing: 2 });
    expect(entries.get('records.csv')!.toString()).toContain('pattern.csv');
  });

  it('a user sees only what they may read, and only their own exports', async () => {
    const { result, bytes } = await run({ format: 'csv' }, userToken);
    // Private records (every third) are not theirs to read.
    expect(result.records).toBe(N - Math.ceil(N / 3));
    expect(bytes.toString()).not.toContain(SYNTH.record(3));
    const admins = await fetch(`${t.host.url}${result.download}`, { headers: auth(t.admin.token!) });
    expect(admins.status).toBe(404);
    expect(((await admins.json()) as { error: { message: string } }).error.message).toContain('Export');
  });

  it('refuses bad input with a 400 naming it, starting no job and changing nothing', async () => {
    const before = t.digest();
    for (const [body, word] of [
      ['{', 'not valid JSON'],
      [{}, 'format'],
      [{ format: 'xml' }, 'format must be "csv" or "json"'],
      [{ format: 'csv', columns: ['nope'] }, 'columns[0]: nope is not a field'],
      [{ format: 'csv', view: { filters: [{ kind: 'range', field: SYNTH.field('Integer') }] } }, 'needs min or max'],
      [{ format: 'csv', view: { sort: 'nope' } }, 'sort: nope'],
      [{ format: 'csv', files: 'yes' }, 'files'],
    ] as const) {
      const r = await post(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error?.message, JSON.stringify(body)).toContain(word);
    }
    expect((await post({ format: 'csv' }, null)).status).toBe(401);
    const missing = await fetch(`${t.host.url}/local/datasets/ffffffffffffffffffffffffffff/export`, {
      method: 'POST',
      headers: { ...auth(t.admin.token!), 'Content-Type': 'application/json' },
      body: JSON.stringify({ format: 'csv' }),
    });
    expect(missing.status).toBe(404);
    expect(t.digest()).toBe(before);
    const bad = await fetch(`${t.host.url}/local/exports/..%2Fodr.sqlite`, { headers: auth(t.admin.token!) });
    expect(bad.status).toBe(400);
    expect((await fetch(`${t.host.url}/local/exports/00000000-0000-0000-0000-000000000000`)).status).toBe(401);
  });
});
