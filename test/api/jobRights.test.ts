import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { writeCsv } from '../../bench/sections/csvImport.js';
import { SYNTH, writeSyntheticExport } from '../../bench/synthetic.js';
import { grantRole } from '../../electron/service/domain/userAdmin.js';
import type { TrackedJob } from '../../shared/schemas/job.js';
import { jobPausedOnce } from '../support/jobs.js';
import { startSyntheticService, USER, type TestService } from '../support/service.js';

// A long write job checks the user's right when it is asked for, then writes batch after batch
// (CSV: 2,000 rows per transaction; an ODR export: 1,000 records; thumbnails: 16 images),
// yielding between them. The
// write that takes the right away runs inside the service at the job's first progress report,
// i.e. after the first batch committed (a request sent over HTTP would land after no batch in
// particular). Without the check per batch, every row of the file went in.

const IMAGES = 20;
let t: TestService;
let token: string;
beforeAll(async () => {
  t = await startSyntheticService(IMAGES);
  token = (await t.loginAs(USER.email, USER.password)).token!;
}, 60_000);
afterAll(() => t.close());

const d = () => t.service.domain;
const admin = () => d().users.firstSuperUser()!;
const dsName = () => d().schema().datatypesByUuid.get(SYNTH.dataset)!.name;
const role = (permission: string) => grantRole(d(), admin(), { user_email: USER.email, dataset_uuid: SYNTH.dataset, permission });
/** Top-level records of the synthetic dataset. */
const count = async () =>
  (await t.admin.request<{ records: unknown[] }>('GET', `/search/database/${SYNTH.dataset}/records/0/0`)).records.length;

/** Posts the import as the user; `between` runs once, at the job's first progress report. Answers the ended job. */
const ran = (route: string, form: FormData | undefined, type: string, between: () => void): Promise<TrackedJob> =>
  jobPausedOnce(
    d(),
    type,
    () => fetch(`${t.host.url}/local/${route}`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form }),
    between,
  );

it('CSV: the edit role revoked after the first batch stops the import there, saying so', async () => {
  role('edit');
  const file = path.join(t.dataDir, 'rows.csv');
  writeCsv(file, 10_000);
  const fd = new FormData();
  fd.append('format', 'csv');
  fd.append('dataset', SYNTH.dataset);
  fd.append('file', new Blob([readFileSync(file)]), 'rows.csv');
  const before = await count();
  const end = await ran('import', fd, 'import_csv', () => role('none'));
  expect(end.state).toBe('failed');
  expect(end.error).toBe(`Stopped: your edit role on dataset "${dsName()}" was removed; 2000 rows were written, the rest were not`);
  expect((await count()) - before).toBe(2000);
}, 60_000);

it('ODR export: the edit role lowered to view after the first batch stops the import there, saying so', async () => {
  role('edit');
  const file = path.join(t.dataDir, 'records.json');
  await writeSyntheticExport(file, 5000); // records 0-19 are stored already: skipped
  const fd = new FormData();
  fd.append('file', new Blob([readFileSync(file)]), 'records.json');
  const before = await count();
  const end = await ran('import', fd, 'import', () => role('view'));
  expect(end.state).toBe('failed');
  expect(end.error).toBe(
    `Stopped: your edit role on dataset "${dsName()}" was changed to view; 980 records were written (20 already present), the rest were not`,
  );
  expect((await count()) - before).toBe(980);
}, 60_000);

it('thumbnails: the admin role lowered to edit after the first page of images stops the rebuild there, saying so', async () => {
  const img = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
    .jpeg()
    .toBuffer();
  for (let i = 0; i < IMAGES; i++) {
    await t.admin.uploadFile(
      { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(i), field_uuid: SYNTH.field('Image') },
      { blob: new Blob([img]), name: `i${i}.jpg` },
    );
  }
  role('admin');
  const end = await ran(`thumbnails/${SYNTH.dataset}`, undefined, 'rebuild_thumbnails', () => role('edit'));
  expect(end.state).toBe('failed');
  expect(end.error).toBe(
    `Stopped: your admin role on dataset "${dsName()}" was changed to edit; 16 of ${IMAGES} images were done, the rest were not`,
  );
}, 60_000);
