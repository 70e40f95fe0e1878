import { Ajv2020 } from 'ajv/dist/2020.js';
import { Validator } from '@seriousme/openapi-schema-validator';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../electron/service/api/app.js';
import { keyFileBox } from '../../electron/service/sync/secrets.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { SYNTH, syntheticTemplate } from '../../bench/synthetic.js';
import { ADMIN, USER, startSyntheticService, type TestService } from '../support/service.js';

// The OpenAPI document against reality: it must describe exactly the routes the Hono app has,
// be a valid OpenAPI 3.1 document, and every route — called the way a generated client would,
// from the document alone (URL template, parameters, request media type) — must answer with a
// status and body the document allows.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Op = { method: string; path: string; op: Json };

let t: TestService;
let doc: Json;
let ajv: Ajv2020;
let origin: string;

let png: Buffer;

/** Hono's `/a/:x{[0-9]+}?/:y?` as the document writes it: `/a/{x}/{y}` (every optional segment present). */
const fullForm = (p: string) => p.replace(/:([A-Za-z_]+)(\{[^}]*\})?\??/g, '{$1}');

function operations(d: Json): Op[] {
  return Object.entries(d.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, op]) => ({ method, path, op: op as Json })),
  );
}

/** Validates `body` against the schema the document gives `status` (exact code, else 4XX/5XX). */
function check(o: Op, status: number, contentType: string | null, body: unknown): void {
  const responses = o.op.responses as Json;
  const r = responses[String(status)] ?? responses[`${String(status)[0]}XX`];
  expect(r, `${o.method} ${o.path} answered ${status}, which the document does not list`).toBeDefined();
  if (status === 302) return;
  const [media, spec] = Object.entries(r.content as Json)[0]!;
  if (media !== '*/*') expect(contentType ?? '', `${o.method} ${o.path} content type`).toContain(media.split(';')[0]);
  if (media !== 'application/json') return;
  const ref = (spec as Json).schema.$ref as string | undefined;
  const validate = ajv.compile(ref ? { $ref: `odr${ref.replace('#/components/schemas/', '#/$defs/')}` } : (spec as Json).schema);
  const valid = validate(body);
  expect(valid, `${o.method} ${o.path} → ${status}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
}

let recordToDelete: string;
let recordsToDelete: string[];
let fileUuid: string;
let jobId: number;
let jobToCancel: number;
let remoteId = 0;
let fileId: number;
let imageId: number;
let spareDataset: string;
let trashId = '';

beforeAll(async () => {
  t = await startSyntheticService(12);
  png = await sharp({ create: { width: 4, height: 3, channels: 3, background: '#3a7' } })
    .png()
    .toBuffer();
  origin = new URL(t.api).origin;
  doc = (await (await fetch(`${t.api}/openapi.json`)).json()) as Json;
  const defs = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'));
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: 'odr', $defs: defs });

  recordToDelete = (await t.admin.createRecord(SYNTH.dataset)).record_uuid;
  recordsToDelete = [(await t.admin.createRecord(SYNTH.dataset)).record_uuid];
  const withFile = await t.admin.uploadFile(
    { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(1), field_uuid: SYNTH.field('File') },
    { blob: new Blob(['a,b\n1,2\n']), name: 'data.csv' },
  );
  fileUuid = withFile.fields
    .find((f) => f.field_uuid === SYNTH.field('File'))!
    .files!.find((f) => f.original_name === 'data.csv')!.file_uuid;
  const withFileField = withFile.fields
    .find((f) => f.field_uuid === SYNTH.field('File'))!
    .files!.find((f) => f.original_name === 'data.csv')!;
  fileId = withFileField.id;
  const withImage = await t.admin.uploadFile(
    { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(2), field_uuid: SYNTH.field('Image') },
    { blob: new Blob([new Uint8Array(png)], { type: 'image/png' }), name: 'a.png' },
  );
  imageId = withImage.fields.find((f) => f.field_uuid === SYNTH.field('Image'))!.files![0]!.id;
  // A second dataset for DELETE /dataset to remove.
  const created = await fetch(`${t.api}/dataset`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.admin.token}` },
    redirect: 'manual',
    body: new URLSearchParams({ template_uuid: SYNTH.dataset, dataset_name: 'Spare' }),
  });
  spareDataset = (
    (await (
      await fetch(new URL(created.headers.get('location')!, t.api), { headers: { Authorization: `Bearer ${t.admin.token}` } })
    ).json()) as OdrRecord
  ).database_uuid;
  const job = { job_type: 'csv_export', target_entity: SYNTH.dataset, total: 2, additional_data: {} };
  jobId = (await t.admin.createJob(job)).id;
  jobToCancel = (await t.admin.createJob(job)).id;
});
// The service's own jobs the calls started (a sync run against this very service, an import, a
// sample) are stopped and awaited by close() before the database closes.
afterAll(() => t.close());

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document, served without credentials', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: origin }]);
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? [], JSON.stringify(result.errors ?? []).slice(0, 500)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes exactly the routes the app has, and no others', () => {
    const { app } = createApp(t.service.domain, { autoLogin: false, secrets: keyFileBox(t.dataDir) });
    const real = new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method.toLowerCase()} ${fullForm(r.path)}`));
    // A `.json` suffix is stripped before routing, so a documented …/x.json is served by …/x.
    const documented = new Set(operations(doc).map((o) => `${o.method} ${o.path.replace(/\.json$/, '')}`));
    expect(
      [...real].filter((r) => !documented.has(r)),
      'routes the document does not describe',
    ).toEqual([]);
    expect(
      [...documented].filter((r) => !real.has(r)),
      'documented routes the app does not have',
    ).toEqual([]);
  });
});

describe('every route, called from the document alone, answers as the document says', () => {
  // Test data only: which record, file or job each call is about. How to call (path template,
  // parameter names, media types, auth) comes from the document.
  const args = (): Record<string, { params?: Record<string, string>; query?: Record<string, string>; body?: Json; status?: number }> => ({
    postToken: { body: { username: ADMIN.email, password: ADMIN.password } },
    getOpenapiJson: {},
    getAuthStatus: {},
    getDatasetUuidModifiedFilesRecentLimitOffset: { params: { uuid: SYNTH.dataset, recent: '0', limit: '0', offset: '0' } },
    getTemplateUuid: { params: { uuid: SYNTH.dataset } },
    getMasterUuid: { params: { uuid: SYNTH.dataset } },
    getSearchTemplateUuid: { params: { uuid: SYNTH.dataset } },
    getSearchDatabaseUuid: { params: { uuid: SYNTH.dataset } },
    getSearchDatabases: {},
    getSearchTemplates: {},
    postDataset: { body: { template_uuid: SYNTH.dataset, dataset_name: 'From the document' }, status: 302 },
    getDatasetRecordUuid: { params: { uuid: SYNTH.record(1) } },
    getSearchRecordUuid: { params: { uuid: SYNTH.record(2) } },
    getDatasetUuidLimitOffset: { params: { uuid: SYNTH.dataset, limit: '5', offset: '0' } },
    getDatasetUuidModifiedRecordsRecentLimitOffset: { params: { uuid: SYNTH.dataset, recent: '0', limit: '0', offset: '0' } },
    getSearchDatabaseUuidModifiedRecordsRecentLimitOffset: { params: { uuid: SYNTH.dataset, recent: '0', limit: '3', offset: '0' } },
    getSearchDatabaseUuidRecordsLimitOffset: { params: { uuid: SYNTH.dataset, limit: '0', offset: '0' } },
    postDatasetUuidRecord: { params: { uuid: SYNTH.dataset }, body: { public_date: '2024-01-01' } },
    postDatasetRecord: {
      body: { record_uuid: SYNTH.record(4), fields: [{ field_uuid: SYNTH.field('Medium Text'), value: 'from the document' }] },
    },
    putDataset: { body: { record_uuid: SYNTH.record(4), fields: [{ field_uuid: SYNTH.field('Integer'), value: 7 }] } },
    postDatasetRecordPublic: {
      body: { user_email: ADMIN.email, dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(5), public_date: '2024-02-02' },
    },
    postRecordRecordFieldValue: { params: { record: SYNTH.record(4), field: SYNTH.field('Short Text') }, body: { value: 'S-DOC' } },
    putRecordRecordFieldOptionState: {
      params: { record: SYNTH.record(4), field: SYNTH.field('Single Radio'), option: SYNTH.option('Single Radio', 2), state: 'selected' },
    },
    deleteRecordUuid: { params: { uuid: '' } },
    deleteRecord: { body: { record_uuids: [] } },
    getDatasetQuotaUuid: { params: { uuid: SYNTH.dataset } },
    postFile: {
      body: { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(7), field_uuid: SYNTH.field('Image'), file: 'png' },
      status: 302,
    },
    getFileUuid: { params: { uuid: '' } },
    deleteFileUuid: { params: { uuid: '' } },
    postJob: { body: { job: { job_type: 'csv_export', target_entity: SYNTH.dataset, total: 3, additional_data: {} } } },
    putJob: { body: {} },
    postWorkerJob: { body: {} },
    getJobStatus: { status: 404 },
    getJobStatusId: { params: { id: '' } },
    getJobStatusIdFull: { params: { id: '', full: '1' } },
    getJobComplete: { status: 404 },
    getJobCompleteId: { params: { id: '' } },
    getJobCancelId: { params: { id: '' } },
    getJobsType: { params: { type: 'csv_export' } },
    getJobsCompletedTypeCount: { params: { type: 'csv_export', count: '5' } },
    postDatasetUuidSearchLimitOffset: {
      params: { uuid: SYNTH.dataset, limit: '3', offset: '0' },
      body: { fields: [{ field_uuid: SYNTH.field('Short Text'), value: 'S-0000' }] },
    },
    getDatasetSearchKeyLimitOffsetList: {
      params: {
        key: Buffer.from(JSON.stringify({ dt_id: '901', gen: 'sample' })).toString('base64url'),
        limit: '2',
        offset: '0',
        list: '1',
      },
    },
    getSearchKeyLimitOffset: {
      params: { key: Buffer.from(JSON.stringify({ template_uuid: SYNTH.dataset })).toString('base64url'), limit: '2', offset: '1' },
    },
    postSearchLimitOffset: {
      params: { limit: '2', offset: '0' },
      body: { search_key: Buffer.from(JSON.stringify({ template_uuid: SYNTH.dataset, general: 'sample' })).toString('base64url') },
    },
    postLegacysearchLimitOffset: {
      params: { limit: '2', offset: '0' },
      body: { search_key: Buffer.from(JSON.stringify({ template_uuid: SYNTH.dataset })).toString('base64url') },
    },
    getSearchFieldField: { params: { field: SYNTH.field('Tags') } },
    getSearchFieldStatsTemplateField: { params: { template: SYNTH.dataset, field: SYNTH.field('Single Select') } },
    getSearchFieldStatsbydatasetTemplateField: { params: { template: SYNTH.dataset, field: SYNTH.field('Tags') } },
    getSearchFieldLegacystatsTemplateField: { params: { template: SYNTH.dataset, field: SYNTH.field('Multiple Radio') } },
    deleteDatasetUuid: { params: { uuid: '' } },
    getSearchFileDownloadId: { params: { id: '' }, status: 302 },
    getSearchImageDownloadId: { params: { id: '' }, status: 302 },
    getLocalTrash: {},
    postLocalTrashIdRestore: { params: { id: '' } },
    postLocalRecordsUuidRestore: { params: { uuid: '' } },
    getLocalRecordsTrash: { query: { limit: '10' } },
    postUser: { body: { user_email: 'added@test.local', first_name: 'Added', last_name: 'User' } },
    postUserPermissions: { body: { user_email: USER.email, dataset_uuid: SYNTH.dataset, permission: 'view_all' } },
    getLocalUsers: {},
    postDatasetPublish: { body: { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(6) }, status: 302 },
    getJsonldUuid: { params: { uuid: SYNTH.dataset }, query: { limit: '3' } },
    postLocalUsers: { body: { email: 'openapi-new@test.local', first_name: 'Ada' } },
    putLocalUsersId: { params: { id: '' }, body: { first_name: 'Renamed' } },
    getApiDocs: {},
    getApiDocsStandaloneJs: {},
    postLocalSession: {},
    getLocalWhoami: {},
    getLocalDatasets: {},
    getLocalDatasetsUuidRecords: {
      params: { uuid: SYNTH.dataset },
      query: { q: 'sample', sort: SYNTH.field('Integer'), dir: 'desc', limit: '5' },
    },
    getLocalDatasetsUuidRecordUuids: { params: { uuid: SYNTH.dataset }, query: { sort: '_id', dir: 'desc', offset: '1', limit: '3' } },
    getLocalDatasetsUuidPositionRecord: { params: { uuid: SYNTH.dataset, record: SYNTH.record(2) }, query: { sort: '_id' } },
    postLocalDatasetsUuidBatch: {
      params: { uuid: SYNTH.dataset },
      body: { records: [SYNTH.record(3)], change: { kind: 'public', public: false } },
    },
    getLocalRecordsUuidHistory: { params: { uuid: SYNTH.record(2) }, query: { limit: '5' } },
    getLocalDatasetsUuidSavedSearches: { params: { uuid: SYNTH.dataset } },
    postLocalDatasetsUuidSavedSearches: {
      params: { uuid: SYNTH.dataset },
      body: { name: 'Large integers', view: { q: 'sample', filters: [{ kind: 'range', field: SYNTH.field('Integer'), min: '5' }] } },
    },
    // The search saved just above (deletes run after every other call).
    deleteLocalSavedSearchesId: { params: { id: '1' } },
    getLocalDatasetsUuidColumns: { params: { uuid: SYNTH.dataset } },
    deleteLocalDatasetsUuidColumns: { params: { uuid: SYNTH.dataset } },
    putLocalDatasetsUuidColumns: { params: { uuid: SYNTH.dataset }, body: { columns: [{ key: '_id', width: 90 }] } },
    postLocalDatasetsUuidExport: { params: { uuid: SYNTH.dataset }, body: { format: 'csv' }, status: 202 },
    // No export has run under this name: the answer is the documented error body.
    getLocalExportsId: { params: { id: '00000000-0000-0000-0000-000000000000' }, status: 404 },
    getLocalEvents: {},
    getLocalJobs: { query: { limit: '5' } },
    postLocalImport: { body: { file: 'template' }, status: 202 },
    postLocalImportPreview: { body: { format: 'csv', dataset: SYNTH.dataset, file: 'csv' } },
    postLocalThumbnailsDataset: { params: { dataset: SYNTH.dataset }, status: 202 },
    postLocalSample: { query: { records: '3' }, status: 202 },
    getLocalSync: {},
    getLocalSyncedDatasets: {},
    postLocalSyncRemotes: { body: { url: `${t.api}`, username: ADMIN.email, password: ADMIN.password } },
    getLocalSyncRemotesIdDatasets: { params: { id: '' } },
    postLocalSyncRun: { body: {}, status: 202 },
    putLocalSyncRemotesIdLive: { params: { id: '0' }, body: { pull_seconds: 0 } },
    postLocalSyncFocus: {},
    // No remote 999: the documented error body (test/sync/filesPull.test.ts covers the answer).
    putLocalSyncFilesOffline: { body: { remote_id: 999, dataset_uuid: SYNTH.dataset, keep: true }, status: 404 },
    // No conflict exists in a fresh data dir: the answer is the documented error body.
    postLocalSyncConflictsId: { params: { id: '999' }, body: { choice: 'mine' }, status: 404 },
    // Nor an operation the server refused (test/sync/attention.test.ts covers the answer).
    postLocalSyncAttentionId: { params: { id: '999' }, body: { action: 'retry' }, status: 404 },
    // An unknown dataset: the documented error body (the synthetic one is being synced by the
    // run above; test/sync/stopSyncing.test.ts covers the answer).
    deleteLocalSyncDatasetsUuid: { params: { uuid: '0000000000000000000000000000' }, status: 404 },
    getLocalSyncDatasetsUuid: { params: { uuid: '0000000000000000000000000000' }, status: 404 },
  });

  /** Request body in the first media type the document offers, from plain values. */
  function encode(op: Json, body: Json | undefined): { headers: Record<string, string>; body?: RequestInit['body'] } {
    if (!op.requestBody || body === undefined) return { headers: {} };
    const media = Object.keys(op.requestBody.content)[0]!;
    if (media === 'application/json') return { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
    if (media === 'multipart/form-data') {
      const f = new FormData();
      for (const [k, v] of Object.entries(body)) {
        if (k === 'file' && v === 'png') f.append(k, new Blob([new Uint8Array(png)], { type: 'image/png' }), 'pixel.png');
        else if (k === 'file' && v === 'template')
          f.append(k, new Blob([JSON.stringify({ ...syntheticTemplate(), name: 'Reimported' })]), 'template.json');
        else if (k === 'file' && v === 'csv') f.append(k, new Blob(['Sample ID,Integer field\nS-CSV,x\n']), 'rows.csv');
        else f.append(k, String(v));
      }
      return { headers: {}, body: f };
    }
    return { headers: { 'Content-Type': media }, body: new URLSearchParams(body as Record<string, string>).toString() };
  }

  it('every operation has test data (so none is left uncalled)', () => {
    const data = args();
    const ids = operations(doc).map((o) => o.op.operationId as string);
    expect(ids.filter((id) => !data[id])).toEqual([]);
    expect(Object.keys(data).filter((id) => !ids.includes(id))).toEqual([]);
  });

  it('answers of every route validate against the document; without credentials, 401 with the error body', async () => {
    const data = args();
    // Values only known once the service runs.
    data.deleteRecordUuid!.params!.uuid = recordToDelete;
    data.postLocalRecordsUuidRestore!.params!.uuid = recordToDelete;
    data.deleteRecord!.body = { record_uuids: recordsToDelete };
    data.getFileUuid!.params!.uuid = fileUuid;
    data.deleteFileUuid!.params!.uuid = fileUuid;
    const started = { date: '2026-01-01 00:00:00.000000', timezone_type: 3, timezone: 'UTC' };
    data.putJob!.body = {
      user_email: ADMIN.email,
      job: { id: jobId, job_type: 'csv_export', total: 2, current: 1, started, additional_data: '', target_entity: SYNTH.dataset },
    };
    data.postWorkerJob!.body = { user_email: ADMIN.email, job: { tracked_job_id: jobId, random_key: 'k1', job_order: 1, line_count: 5 } };
    for (const k of ['getJobStatusId', 'getJobStatusIdFull', 'getJobCompleteId'] as const) data[k]!.params!.id = String(jobId);
    data.getJobCancelId!.params!.id = String(jobToCancel);
    data.deleteDatasetUuid!.params!.uuid = spareDataset;
    data.getSearchFileDownloadId!.params!.id = String(fileId);
    data.getSearchImageDownloadId!.params!.id = String(imageId);
    data.putLocalUsersId!.params!.id = String(t.service.domain.users.findByEmail(USER.email)!.id);

    // Mutations that remove what later calls read go last.
    const late: Record<string, number> = {
      getLocalSyncRemotesIdDatasets: 1,
      postLocalSyncRun: 1,
      putLocalSyncRemotesIdLive: 1,
      getLocalTrash: 3,
      // After the deletes, so the answer holds an entry to check against the schema.
      getLocalRecordsTrash: 3,
      postLocalTrashIdRestore: 4,
      // The record deleteRecordUuid deleted comes back.
      postLocalRecordsUuidRestore: 3,
    };
    const order = (o: Op) => late[o.op.operationId as string] ?? (o.method === 'delete' ? 2 : 0);
    const ops = operations(doc).sort((a, b) => order(a) - order(b));
    for (const o of ops) {
      const id = o.op.operationId as string;
      const a = data[id]!;
      if (id === 'getLocalSyncRemotesIdDatasets' || id === 'putLocalSyncRemotesIdLive') a.params!.id = String(remoteId);
      if (id === 'postLocalSyncRun') a.body = { remote_id: remoteId, datasets: [SYNTH.dataset] };
      if (id === 'postLocalTrashIdRestore') a.params!.id = trashId;
      let url = o.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
        const v = a.params?.[name];
        expect(v, `${id}: no value for {${name}}`).toBeTruthy();
        return encodeURIComponent(v!);
      });
      if (a.query) url += `?${new URLSearchParams(a.query).toString()}`;
      const secured = (o.op.security as Json[]).length > 0;
      const req = encode(o.op, a.body);
      const headers = { ...req.headers, ...(secured ? { Authorization: `Bearer ${t.admin.token}` } : {}) };
      const ctl = new AbortController();
      const res = await fetch(`${origin}${url}`, {
        method: o.method.toUpperCase(),
        headers,
        body: req.body,
        redirect: 'manual',
        signal: ctl.signal,
      });
      const want = a.status ?? Number(Object.keys(o.op.responses)[0]);
      const type = res.headers.get('content-type');
      let body: unknown;
      if (type?.includes('text/event-stream')) {
        const reader = res.body!.getReader();
        const first = new TextDecoder().decode((await reader.read()).value);
        expect(first).toContain('event: ready');
        ctl.abort();
      } else {
        const text = await res.text();
        body = type?.includes('json') ? JSON.parse(text) : text;
      }
      expect(res.status, `${o.method} ${o.path}: ${JSON.stringify(body)?.slice(0, 300)}`).toBe(want);
      check(o, res.status, type, body);
      if (res.status === 302) {
        const followed = await fetch(new URL(res.headers.get('location')!, origin), {
          headers: { Authorization: `Bearer ${t.admin.token}` },
        });
        expect(followed.status).toBe(200);
        if (followed.headers.get('content-type')?.includes('json')) {
          // A record, or (POST /dataset/publish) the dataset's records.
          const got = (await followed.json()) as OdrRecord & { records: OdrRecord[] };
          expect(got.record_uuid ?? got.records[0]?.record_uuid).toMatch(/^[a-z0-9]+$/);
        } else expect((await followed.arrayBuffer()).byteLength).toBeGreaterThan(0);
      }
      if (id === 'postLocalSyncRemotes') remoteId = (body as { id: number }).id;
      if (id === 'getLocalTrash') trashId = (body as { datasets: { id: string }[] }).datasets[0]!.id;

      if (secured) {
        const anon = await fetch(`${origin}${url}`, {
          method: o.method.toUpperCase(),
          headers: req.headers,
          body: encode(o.op, a.body).body,
          redirect: 'manual',
        });
        const anonBody = await anon.json();
        expect(anon.status, `${o.method} ${o.path} without credentials`).toBe(401);
        check(o, 401, anon.headers.get('content-type'), anonBody);
      }
    }
  });
});
