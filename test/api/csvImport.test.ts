import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_HEADER, writeCsv } from '../../bench/sections/csvImport.js';
import { SYNTH, syntheticTemplate } from '../../bench/synthetic.js';
import type { FieldTypeName } from '../../shared/fieldTypes.js';
import { CsvImportResult, CsvPreview, type CsvRowFailure } from '../../shared/schemas/csvImport.js';
import type { TrackedJob } from '../../shared/schemas/job.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { importCsv, openCsv } from '../../electron/service/domain/import/csvImport.js';
import { bulkIndexStore, DEFERRABLE_INDEXES } from '../../electron/service/store/bulkIndexes.js';
import { runCli } from '../support/processes.js';
import { USER, startSyntheticService, tempDir, type TestService } from '../support/service.js';

// CSV import into a dataset over real HTTP: POST /local/import (format=csv) as a job and POST
// /local/import/preview. Expected records are read back through GET, failures compared one by one.

let t: TestService;
let userToken: string;
const F = (ty: FieldTypeName) => SYNTH.field(ty);

beforeAll(async () => {
  t = await startSyntheticService(3);
  userToken = (await t.loginAs(USER.email, USER.password)).token!;
});
afterAll(() => t.close());

function form(csv: string | Uint8Array, fields: Record<string, string> = {}): FormData {
  const fd = new FormData();
  fd.append('format', 'csv');
  fd.append('dataset', SYNTH.dataset);
  for (const [k, v] of Object.entries(fields)) fd.set(k, v);
  fd.append('file', new Blob([csv]), 'rows.csv');
  return fd;
}

const post = (route: 'import' | 'import/preview', body: FormData, token: string | null = t.admin.token!) =>
  fetch(`${t.host.url}/local/${route}`, { method: 'POST', headers: token ? { Authorization: `Bearer ${token}` } : {}, body });

async function jobs(): Promise<TrackedJob[]> {
  const r = await fetch(`${t.host.url}/local/jobs`, { headers: { Authorization: `Bearer ${t.admin.token}` } });
  return ((await r.json()) as { jobs: TrackedJob[] }).jobs;
}

/** Imports through the job route and waits (bounded) for the job's end. */
async function importRows(csv: string | Uint8Array, fields: Record<string, string> = {}): Promise<CsvImportResult> {
  const r = await post('import', form(csv, fields));
  expect(r.status, await r.clone().text()).toBe(202);
  const started = (await r.json()) as TrackedJob;
  expect(started.job_type).toBe('import_csv');
  for (let i = 0; i < 600; i++) {
    const job = (await jobs()).find((j) => j.id === started.id)!;
    if (job.state !== 'running') {
      expect(job.state, job.error ?? '').toBe('complete');
      return CsvImportResult.parse(job.additional_data);
    }
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('the import job did not end within 30 s');
}

async function preview(csv: string | Uint8Array, fields: Record<string, string> = {}): Promise<CsvPreview> {
  const r = await post('import/preview', form(csv, fields));
  expect(r.status, await r.clone().text()).toBe(200);
  return CsvPreview.parse(await r.json());
}

async function records(): Promise<OdrRecord[]> {
  return (await t.admin.request<{ records: OdrRecord[] }>('GET', `/dataset/${SYNTH.dataset}/1000/0`)).records;
}
/** How many top-level records the dataset has (ids only, limit 0 = all). */
async function count(): Promise<number> {
  return (await t.admin.request<{ records: unknown[] }>('GET', `/search/database/${SYNTH.dataset}/records/0/0`)).records.length;
}
const bySampleId = (rs: OdrRecord[], id: string) =>
  rs.find((r) => r.fields.some((f) => f.field_uuid === F('Short Text') && f.value === id));
const field = (r: OdrRecord, ty: FieldTypeName) => r.fields.find((f) => f.field_uuid === F(ty));

const HEADER = CSV_HEADER;

describe('CSV import into a dataset', () => {
  it('imports good rows as records with the values, options and tags they name', async () => {
    const csv = [
      HEADER,
      'CSV-1,42,.50,true,2024-02-29,single radio option 2,Multiple Select option 1; Multiple Select option 3,Group 2 item 1,"basalt, with a comma"',
      'CSV-2,-7,1.5e3,0,2020-01-01,Single Radio option 1,,Group 1 > Group 1 item 2;Group 3,"a ""quoted"" word"',
      '',
      'CSV-3,,,,,,,,',
    ].join('\r\n');
    const before = (await records()).length;
    const result = await importRows(csv);
    expect(result).toMatchObject({ kind: 'csv', dataset: SYNTH.dataset, total: 3, imported: 3, failed_rows: 0, failures: [] });
    const after = await records();
    expect(after.length).toBe(before + 3);
    const one = bySampleId(after, 'CSV-1')!;
    expect(field(one, 'Integer')!.value).toBe(42);
    expect(field(one, 'Decimal')!.value).toBe('0.50');
    expect(field(one, 'Boolean')!.selected).toBe(1);
    expect(field(one, 'DateTime')!.value).toBe('2024-02-29');
    expect(field(one, 'Single Radio')!.values!.map((v) => v.template_radio_option_uuid)).toEqual([SYNTH.option('Single Radio', 2)]);
    expect(
      field(one, 'Multiple Select')!
        .values!.map((v) => v.template_radio_option_uuid)
        .sort(),
    ).toEqual([SYNTH.option('Multiple Select', 1), SYNTH.option('Multiple Select', 3)].sort());
    // Selecting a tag selects its ancestors, as the save endpoint does.
    expect(
      field(one, 'Tags')!
        .tags!.map((x) => x.template_tag_uuid)
        .sort(),
    ).toEqual([SYNTH.tag(2), SYNTH.tag(7)].sort());
    expect(field(one, 'Medium Text')!.value).toBe('basalt, with a comma');
    const two = bySampleId(after, 'CSV-2')!;
    expect(field(two, 'Decimal')!.value).toBe('1.5e3');
    expect(field(two, 'Boolean')!.selected).toBe(0);
    expect(
      field(two, 'Tags')!
        .tags!.map((x) => x.template_tag_uuid)
        .sort(),
    ).toEqual([SYNTH.tag(1), SYNTH.tag(5), SYNTH.tag(3)].sort());
    expect(field(two, 'Medium Text')!.value).toBe('a "quoted" word');
    // An empty cell writes nothing.
    const three = bySampleId(after, 'CSV-3')!;
    expect(field(three, 'Integer')).toBeUndefined();
    expect(three._record_metadata._create_auth).toBeTruthy();
  });

  it('reports every bad row one by one (row, column, message) and imports the others', async () => {
    const good = (n: number) => `OK-${n},1,2.5,1,2021-05-05,Single Radio option 3,,Group 1,fine`;
    const rows: [string, CsvRowFailure[]][] = [
      [good(1), []],
      ['BAD-int,abc,,,,,,,', [{ row: 3, column: 'Integer field', message: 'Invalid Integer value: "abc" is not an integer' }]],
      [
        'BAD-range,99999999999,,,,,,,',
        [{ row: 4, column: 'Integer field', message: 'Invalid Integer value: 99999999999 is outside the 32-bit range' }],
      ],
      ['BAD-dec,,1.2.3,,,,,,', [{ row: 5, column: 'Decimal field', message: 'Invalid Decimal value: "1.2.3" is not a decimal number' }]],
      [
        'BAD-date,,,,2023-02-30,,,,',
        [{ row: 6, column: 'DateTime field', message: 'Invalid DateTime value: "2023-02-30" is not a calendar date' }],
      ],
      [
        'BAD-bool,,,maybe,,,,,',
        [{ row: 7, column: 'Boolean field', message: 'Invalid Boolean value: expected 1, 0, true, false, "1", "0" or ""' }],
      ],
      [
        'BAD-text-that-is-much-longer-than-32-bytes,,,,,,,,',
        [{ row: 8, column: 'Sample ID', message: 'Invalid Short Text value: longer than 32 bytes (42 given)' }],
      ],
      [
        'BAD-opt,,,,,Nope,,,',
        [
          {
            row: 9,
            column: 'Single Radio field',
            message: expect.stringMatching(
              /^"Nope" is not an option of Single Radio field "Single Radio field" \(options: "Single Radio option 1"/,
            ) as unknown as string,
          },
        ],
      ],
      [
        'BAD-multi,,,,,,Multiple Select option 1;Invented,,',
        [{ row: 10, column: 'Multiple Select field', message: expect.stringMatching(/^"Invented" is not an option/) as unknown as string }],
      ],
      ['BAD-tag,,,,,,,No such tag,', [{ row: 11, column: 'Tags field', message: '"No such tag" is not a tag of field "Tags field"' }]],
      ['BAD-cols,1,2', [{ row: 12, column: null, message: 'the row has 3 column(s), the header 9' }]],
      [
        'BAD-two,x,,,1999-13-01,,,,',
        [
          { row: 13, column: 'Integer field', message: 'Invalid Integer value: "x" is not an integer' },
          { row: 13, column: 'DateTime field', message: 'Invalid DateTime value: "1999-13-01" is not a calendar date' },
        ],
      ],
      [good(2), []],
    ];
    const csv = [HEADER, ...rows.map((r) => r[0])].join('\n') + '\n';
    const want = rows.flatMap((r) => r[1]);

    const shown = await preview(csv);
    expect(shown.total).toBe(rows.length);
    expect(shown.failed_rows).toBe(11);
    expect(shown.failures).toEqual(want);
    expect(shown.rows[0]![0]).toBe('OK-1');
    expect(shown.columns.map((c) => [c.name, c.source])).toEqual(HEADER.split(',').map((h) => [h, 'guess']));
    expect(shown.fields.find((f) => f.field_uuid === F('Single Radio'))!.choices).toEqual([1, 2, 3].map((k) => `Single Radio option ${k}`));

    const before = await records();
    const result = await importRows(csv);
    expect(result.failures).toEqual(want);
    expect(result).toMatchObject({ total: rows.length, imported: 2, failed_rows: 11 });
    const after = await records();
    expect(after.length).toBe(before.length + 2);
    for (const [line] of rows.filter((r) => r[1].length)) expect(bySampleId(after, line.split(',')[0]!)).toBeUndefined();
    expect(field(bySampleId(after, 'OK-2')!, 'Integer')!.value).toBe(1);
  });

  it('a byte-order mark, a semicolon delimiter and an explicit mapping (a column left out) are understood', async () => {
    const csv = '\uFEFFSample ID;Weight (kg);Medium Text field\nBOM-1;3,5;left out\n';
    const p = await preview(csv, { mapping: JSON.stringify({ 'Weight (kg)': F('Medium Text'), 'Medium Text field': '' }) });
    expect(p.columns).toEqual([
      { name: 'Sample ID', field_uuid: F('Short Text'), source: 'guess' },
      { name: 'Weight (kg)', field_uuid: F('Medium Text'), source: 'mapping' },
      { name: 'Medium Text field', field_uuid: null, source: 'mapping' },
    ]);
    const r = await importRows(csv, { mapping: JSON.stringify({ 'Weight (kg)': F('Medium Text'), 'Medium Text field': '' }) });
    expect(r.imported).toBe(1);
    expect(field(bySampleId(await records(), 'BOM-1')!, 'Medium Text')!.value).toBe('3,5');
  });

  it('refuses a bad file or form with 4xx and an error body, writes nothing and starts no job', async () => {
    const latin1 = new Uint8Array([...new TextEncoder().encode('Sample ID\nCaf'), 0xe9, 0x0a]);
    const utf16 = new Uint8Array([0xff, 0xfe, 0x53, 0x00]);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]);
    const cases: [string, FormData, number, RegExp][] = [
      ['empty file', form(''), 400, /The CSV file is empty/],
      ['header only', form(`${HEADER}\n`), 400, /header but no rows/],
      ['header and blank lines only', form(`${HEADER}\n\n  \n`), 400, /header but no rows/],
      ['not UTF-8', form(latin1), 400, /not UTF-8 text \(an invalid byte on line 2\)/],
      ['UTF-16', form(utf16), 400, /UTF-16/],
      ['binary, not a CSV', form(png), 400, /Not a CSV file: it holds binary data/],
      ['JSON, not a CSV', form('{"count":1,"records":[]}\n{}\n'), 400, /None of the CSV's columns [\s\S]* matches a field/],
      ['blank header', form('\nCSV-9\n'), 400, /header .* is blank/],
      ['duplicate header', form('Sample ID,Sample ID\na,b\n'), 400, /names column "Sample ID" twice/],
      [
        'no dataset',
        (() => {
          const f = form('Sample ID\nx\n');
          f.delete('dataset');
          return f;
        })(),
        400,
        /"dataset" .* is required/,
      ],
      ['unknown dataset', form('Sample ID\nx\n', { dataset: 'nope' }), 404, /Dataset/],
      ['child dataset', form('Split\nx\n', { dataset: SYNTH.child }), 400, /child dataset/],
      [
        'no file',
        (() => {
          const f = form('x');
          f.delete('file');
          return f;
        })(),
        400,
        /Attach the CSV/,
      ],
      ['mapping not JSON', form('Sample ID\nx\n', { mapping: '{' }), 400, /mapping: not valid JSON/],
      ['mapping not an object', form('Sample ID\nx\n', { mapping: '[1]' }), 400, /mapping: must be a JSON object/],
      ['mapping names no column', form('Sample ID\nx\n', { mapping: '{"Nope":""}' }), 400, /the CSV has no column "Nope"/],
      ['mapping names no field', form('Sample ID\nx\n', { mapping: '{"Sample ID":"nofield"}' }), 400, /"nofield" .* is not a field/],
      [
        'mapping to a file field',
        form('Sample ID\nx\n', { mapping: JSON.stringify({ 'Sample ID': F('File') }) }),
        400,
        /File field, which a CSV cannot fill/,
      ],
      [
        'two columns, one field',
        form('Sample ID,Other\nx,y\n', { mapping: JSON.stringify({ 'Sample ID': F('Short Text'), Other: F('Short Text') }) }),
        400,
        /both go to field "Sample ID"/,
      ],
      ['unknown format', form('Sample ID\nx\n', { format: 'xml' }), 400, /format must be "csv" or "odr"/],
    ];
    const digest = t.digest();
    const jobCount = (await jobs()).length;
    for (const [name, body, status, message] of cases) {
      for (const route of ['import', 'import/preview'] as const) {
        if (name === 'unknown format' && route === 'import/preview') continue;
        const r = await post(route, body);
        const json = (await r.json()) as { error: { code: number; message: string } };
        expect([name, route, r.status]).toEqual([name, route, status]);
        expect(json.error.code, name).toBe(status);
        expect(json.error.message, name).toMatch(message);
      }
    }
    expect((await jobs()).length).toBe(jobCount);
    expect(t.digest()).toBe(digest);
  });

  it('refuses a user without the right to edit the dataset (no role, view role), and an anonymous caller; nothing written', async () => {
    const digest = t.digest();
    for (const route of ['import', 'import/preview'] as const) {
      const r = await post(route, form(`${HEADER}\nX-1,1,,,,,,,\n`), userToken);
      expect(r.status).toBe(403);
      expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/may not import records into dataset/);
      const anon = await post(route, form(`${HEADER}\nX-1,1,,,,,,,\n`), null);
      expect(anon.status).toBe(401);
    }
    expect(t.digest()).toBe(digest);
    // The view role does not let one import; the edit role does.
    const grant = async (permission: string) => {
      const r = await fetch(`${t.api}/user/permissions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.admin.token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ user_email: USER.email, dataset_uuid: SYNTH.dataset, permission }),
      });
      expect(r.status, await r.text()).toBe(200);
    };
    await grant('view');
    const granted = t.digest();
    for (const route of ['import', 'import/preview'] as const) {
      expect((await post(route, form(`${HEADER}\nX-1,1,,,,,,,\n`), userToken)).status).toBe(403);
    }
    expect(t.digest()).toBe(granted);
    await grant('edit');
    expect((await post('import/preview', form(`${HEADER}\nX-1,1,,,,,,,\n`), userToken)).status).toBe(200);
    await grant('none');
  });

  it('a 10,000-row file imports with its bad rows reported one by one', async () => {
    // The bench's file: one row in 500 has a bad integer.
    const file = path.join(t.dataDir, 'rows-10000.csv');
    writeCsv(file, 10_000);
    const bad = Array.from({ length: 10_000 }, (_, i) => i)
      .filter((i) => i % 500 === 7)
      .map((i) => i + 2);
    const before = await count();
    const result = await importRows(readFileSync(file));
    console.log(
      `10,000-row CSV: ${result.imported} imported, ${result.failed_rows} refused in ${result.seconds} s = ${Math.round(result.total / result.seconds)} rows/s`,
    );
    expect(result).toMatchObject({ total: 10_000, imported: 10_000 - bad.length, failed_rows: bad.length });
    expect(result.failures.map((f) => [f.row, f.column])).toEqual(bad.map((r) => [r, 'Integer field']));
    expect(await count()).toBe(before + 10_000 - bad.length);
  });
});

describe('a large CSV import builds the value indexes once, at its end', () => {
  const indexSql = () =>
    Object.fromEntries(
      DEFERRABLE_INDEXES.map((n) => [
        n,
        t.service.ctx.db.prepare<[string], string>("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?").pluck().get(n),
      ]),
    );
  // A file of 2,000 rows stands for a large one: the plan's line count is what weighs it.
  const large = async (rows: number) => {
    const file = path.join(t.dataDir, `rows-${rows}.csv`);
    writeCsv(file, rows);
    const user = t.service.domain.users.firstSuperUser()!;
    const plan = await openCsv(t.service.domain, user, file, SYNTH.dataset);
    return { user, plan: { ...plan, lines: 50_000 } };
  };

  // A per-field search (served by field_values_by_field) for a value of the file's last row.
  const sampleIdHits = async () =>
    (
      await t.admin.request<{ records: unknown[] }>('POST', `/dataset/${SYNTH.dataset}/search/100/0`, {
        json: { fields: [{ field_uuid: F('Short Text'), value: 'CSV-3999' }] },
      })
    ).records.length;

  it('drops them while the rows go in, builds the same ones after; bad rows reported, searches find the rows', async () => {
    const before = indexSql();
    expect(Object.values(before).every((s) => typeof s === 'string')).toBe(true);
    const hits = await sampleIdHits();
    const { user, plan } = await large(4000);
    const during: string[][] = [];
    const result = await importCsv(t.service.domain, user, plan, () => {
      during.push(bulkIndexStore(t.service.ctx.db).deferred().sort());
      return true;
    });
    expect(result).toMatchObject({ total: 4000, imported: 4000 - 8, failed_rows: 8 });
    expect(result.failures.map((f) => f.column)).toEqual(Array(8).fill('Integer field'));
    // Progress after the first batch of 2,000 good rows, and at the end (indexes back by then).
    expect(during).toEqual([[...DEFERRABLE_INDEXES].sort(), []]);
    expect(indexSql()).toEqual(before);
    expect(bulkIndexStore(t.service.ctx.db).deferred()).toEqual([]);
    expect(await sampleIdHits()).toBe(hits + 1);
  });

  it('a cancelled large import keeps the rows written and still builds them again', async () => {
    const before = indexSql();
    const { user, plan } = await large(4000);
    const n0 = await count();
    await expect(importCsv(t.service.domain, user, plan, () => false)).rejects.toThrow(/cancelled/);
    expect(indexSql()).toEqual(before);
    expect(bulkIndexStore(t.service.ctx.db).deferred()).toEqual([]);
    expect(await count()).toBe(n0 + 2000);
  });
});

describe('npm run odr -- import-csv', () => {
  it('imports a CSV into a dataset, lists the refused rows and exits 3; --dry-run writes nothing', async () => {
    const dir = tempDir('odr-csv-cli-');
    const template = path.join(dir, 'template.json');
    writeFileSync(template, JSON.stringify(syntheticTemplate()));
    const csv = path.join(dir, 'rows.csv');
    writeFileSync(csv, `${HEADER}\nCLI-1,5,,,,,,,\nCLI-2,five,,,,,,,\nCLI-3,,,,,Single Radio option 9,,,\n`);
    const data = path.join(dir, 'data');
    const setup = runCli(['import', template, '--data', data]);
    expect((await setup.exited).code, setup.output()).toBe(0);

    const dry = runCli(['import-csv', csv, '--dataset', SYNTH.dataset, '--data', data, '--dry-run']);
    expect((await dry.exited).code, dry.output()).toBe(3);
    expect(dry.output()).toContain('dry run: 1 of 3 row(s) would be imported, 2 refused');

    const p = runCli(['import-csv', csv, '--dataset', SYNTH.dataset, '--data', data, '--map', 'Medium Text field=']);
    expect((await p.exited).code, p.output()).toBe(3);
    const out = p.output();
    expect(out).toMatch(/column "Sample ID" → Sample ID \(Short Text, by name\)/);
    expect(out).toContain('column "Medium Text field" → left out');
    expect(out).toMatch(/imported 1 of 3 row\(s\) into Synthetic Samples \(a0+d1\) in [\d.]+ s \(\d+ rows\/s\); 2 refused/);
    expect(out).toContain('row 3, column "Integer field": Invalid Integer value: "five" is not an integer');
    expect(out).toMatch(/row 4, column "Single Radio field": "Single Radio option 9" is not an option/);

    const refused = runCli(['import-csv', csv, '--dataset', 'nope', '--data', data]);
    expect((await refused.exited).code).toBe(1);
    expect(refused.output()).toContain("error: This Dataset can't be found.");
  }, 120_000); // four CLI processes in turn: 30.6 s at load 19
});
