import Papa from 'papaparse';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { createRecord, deleteRecords, setPublicDate } from '../../electron/service/domain/records/ops.js';
import { grantRole } from '../../electron/service/domain/userAdmin.js';
import type { OdrClient } from '../../shared/client/odrClient.js';
import { ExportResult, type ExportRequest } from '../../shared/schemas/view.js';
import { jobPausedOnce } from '../support/jobs.js';
import { startSyntheticService, USER, type TestService } from '../support/service.js';
import { unzip } from '../support/unzip.js';

// An export job chooses its records when it is asked for, then reads and writes them in batches
// (1,000 rows of CSV, 200 records of JSON), yielding between them: each batch is judged by the
// read rule with the user's rights as they are when it is read. The write that takes a right
// away runs in the service at the first progress report (after the first batch): a write sent
// over HTTP would land after no batch in particular. Without the check per batch, every record
// hidden meanwhile was in the file, and a deleted one left a row of empty cells.

const N = 3000;
const FUTURE = '2200-01-01 00:00:00';
let t: TestService;
let user: OdrClient;
beforeAll(async () => {
  t = await startSyntheticService(N);
  user = await t.loginAs(USER.email, USER.password);
}, 120_000);
afterAll(() => t.close());

const d = () => t.service.domain;
const admin = () => d().users.firstSuperUser()!;
const ids = async () => (await user.recordIds(SYNTH.dataset)).records.map((r) => r.unique_id);

/** Runs an export as the user over HTTP; `between` runs once, at its first progress report. */
async function exported(req: Partial<ExportRequest>, between: () => void): Promise<{ result: ExportResult; text: string; bytes: Buffer }> {
  const end = await jobPausedOnce(
    d(),
    'export',
    () =>
      fetch(`${t.host.url}/local/datasets/${SYNTH.dataset}/export`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${user.token!}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(req),
      }),
    between,
  );
  expect(end.state, end.error ?? '').toBe('complete');
  const result = ExportResult.parse(end.additional_data);
  const file = await fetch(`${t.host.url}${result.download}`, { headers: { Authorization: `Bearer ${user.token!}` } });
  expect(file.status).toBe(200);
  const bytes = Buffer.from(await file.arrayBuffer());
  return { result, text: bytes.toString('utf8'), bytes };
}

it('CSV: a record made non-public and one deleted after the first batch are not in the file or its count', async () => {
  const visible = await ids();
  expect(visible.length).toBe(N - N / 3);
  const [gone, hidden] = visible.slice(-2) as [string, string];
  const { result, text } = await exported({ format: 'csv' }, () => {
    setPublicDate(d(), admin(), SYNTH.dataset, hidden, FUTURE);
    deleteRecords(d(), admin(), [gone]);
  });
  const rows = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), { skipEmptyLines: true }).data.slice(1);
  const uuids = rows.map((r) => r[0]);
  expect(uuids).not.toContain(hidden);
  expect(uuids).not.toContain(gone);
  expect(new Set(uuids)).toEqual(new Set(visible.slice(0, -2)));
  expect(result.records).toBe(uuids.length);
}, 60_000);

it("JSON: the user's role revoked after the first batch: the rest holds only what they may still read", async () => {
  await t.admin.request('POST', '/user/permissions', { form: { user_email: USER.email, dataset_uuid: SYNTH.dataset, permission: 'view' } });
  const all = await ids();
  expect(all.length).toBe(N - 1); // the first test deleted one
  const { result, text } = await exported({ format: 'json' }, () =>
    grantRole(d(), admin(), { user_email: USER.email, dataset_uuid: SYNTH.dataset, permission: 'none' }),
  );
  const still = new Set(await ids());
  const list = JSON.parse(text) as { count: number; records: { record_uuid: string }[] };
  const uuids = list.records.map((r) => r.record_uuid);
  const first = uuids.slice(0, 200); // the first batch, read with the role
  expect(first.some((u) => !still.has(u))).toBe(true);
  expect(uuids.slice(200).filter((u) => !still.has(u))).toEqual([]);
  expect(new Set(uuids)).toEqual(new Set([...first, ...still]));
  expect(list.count).toBe(uuids.length);
  expect(result.records).toBe(uuids.length);
}, 60_000);

it('zip: the files of records the user may no longer read when the zip starts are left out', async () => {
  await t.admin.request('POST', '/user/permissions', { form: { user_email: USER.email, dataset_uuid: SYNTH.dataset, permission: 'view' } });
  const { result, bytes } = await exported({ format: 'json', files: true }, () =>
    grantRole(d(), admin(), { user_email: USER.email, dataset_uuid: SYNTH.dataset, permission: 'none' }),
  );
  const entries = await unzip(bytes);
  const list = JSON.parse(entries.get('records.json')!.toString('utf8')) as { records: { internal_id: number }[] };
  // Synthetic records i = internal_id - 500000: one in five has a file (metadata only: listed as
  // missing), one in three is not public. The first batch, read with the role, holds private ones.
  const i = (id: number) => id - 500_000;
  expect(list.records.slice(0, 200).some((r) => i(r.internal_id) % 3 === 0)).toBe(true);
  const listed = [
    ...entries
      .get('missing-files.txt')!
      .toString()
      .matchAll(/^files\/(\d+)\//gm),
  ].map((m) => i(Number(m[1])));
  expect(listed.length).toBeGreaterThan(0);
  expect(listed.filter((x) => x % 3 === 0)).toEqual([]);
  expect(listed.length).toBe(list.records.filter((r) => i(r.internal_id) % 5 === 0 && i(r.internal_id) % 3 !== 0).length);
  expect(result.missing).toBe(listed.length);
}, 60_000);

it('JSON: a record deleted after the first batch is left out, and one made after the plan is not added', async () => {
  await t.admin.request('POST', '/user/permissions', {
    form: { user_email: USER.email, dataset_uuid: SYNTH.dataset, permission: 'admin' },
  });
  const db = d().ctx.db;
  // A record holding the largest rid, the last of the plan.
  const newest = createRecord(d(), admin(), SYNTH.dataset, {});
  expect(db.prepare('SELECT MAX(rid) FROM records').pluck().get()).toBe(newest.rid);
  const all = await ids();
  expect(all.at(-1)).toBe(newest.uuid);
  let late = '';
  const { result, text } = await exported({ format: 'json' }, () => {
    deleteRecords(d(), admin(), [newest.uuid]);
    late = createRecord(d(), admin(), SYNTH.dataset, {}).uuid;
  });
  // The new record takes a rid of its own, never the deleted one's (migrations/025): the plan's
  // rid holds nothing, and the record made after the plan is not in it.
  expect(db.prepare('SELECT uuid FROM records WHERE rid = ?').pluck().get(newest.rid)).toBeUndefined();
  expect(db.prepare('SELECT rid FROM records WHERE uuid = ?').pluck().get(late)).toBeGreaterThan(newest.rid);
  const list = JSON.parse(text) as { count: number; records: { record_uuid: string }[] };
  expect(list.records.map((r) => r.record_uuid)).toEqual(all.slice(0, -1));
  expect(result.records).toBe(all.length - 1);
}, 60_000);
