import { z } from 'zod';
import { ErrorBody, TokenRequest, TokenResponse } from '../schemas/common.js';
import { JobCreateBody, JobList, JobResponse, JobUpdateBody, TrackedJob, WorkerJobBody, WorkerUnit } from '../schemas/job.js';
import {
  AuthStatus,
  ConflictResolved,
  DatasetSummaries,
  ModifiedFiles,
  TrashEntry,
  TrashList,
  RecordTrashList,
  RecordTrashQuery,
  JobCancelled,
  LocalSession,
  RecordTableQuery,
  RemoteAdded,
  SessionUser,
  TablePage,
} from '../schemas/local.js';
import { DeleteResult, OdrRecord, Quota, RecordList } from '../schemas/record.js';
import {
  CreateDatasetForm,
  CreateRecordForm,
  DeleteRecordsBody,
  PublicForm,
  PublishForm,
  SaveRecord,
  OptionQuery,
  ValueBody,
} from '../schemas/requests.js';
import {
  CountedSearchRecords,
  DatasetSearchBody,
  DatasetSearchResult,
  FieldStats,
  FieldStatsByDataset,
  SearchRecords,
  TemplateSearchPost,
} from '../schemas/search.js';
import { BatchRequest, BatchResult } from '../schemas/batch.js';
import { CsvImportForm, CsvPreview } from '../schemas/csvImport.js';
import { HistoryQuery, RecordHistory } from '../schemas/history.js';
import { ViewPosition, ViewQuery, ViewUuids, ViewUuidsQuery } from '../schemas/selection.js';
import {
  ColumnLayout,
  ColumnLayoutAnswer,
  ExportRequest,
  SavedSearch,
  SavedSearchCreate,
  SavedSearchDeleted,
  SavedSearchList,
} from '../schemas/view.js';
import {
  AddRemoteRequest,
  KeepFilesOfflineAnswer,
  KeepFilesOfflineRequest,
  LiveSettingsRequest,
  LiveStatus,
  LiveStatusList,
  ResolveConflictRequest,
  AttentionRequest,
  AttentionAnswer,
  RunSyncRequest,
  StopSyncingAnswer,
  StopSyncingPreview,
  StopSyncingQuery,
  SyncStatus,
  SyncedDatasets,
} from '../schemas/sync.js';
import { DatabaseList, RecordIdList, Template, TemplateField } from '../schemas/template.js';
import { JsonLdDataset, JsonLdQuery } from '../schemas/jsonld.js';
import {
  PermissionAnswer,
  PermissionForm,
  UserAnswer,
  UserForm,
  UserList,
  UserCreate,
  UserCreated,
  UserSummary,
  UserUpdate,
} from '../schemas/users.js';

// The whole HTTP surface, one entry per route the service registers, described with the zod
// schemas the service and the client already use. The OpenAPI document is generated from this
// table (shared/api/openapi.ts); a test checks it against the routes the app really has.

export type Method = 'get' | 'post' | 'put' | 'delete';
/** bearer: Authorization JWT; job: x-auth API token or Bearer; query: Bearer or ?access_token=; none. */
export type Auth = 'bearer' | 'job' | 'query' | 'none';
export type Media = 'application/json' | 'multipart/form-data' | 'application/x-www-form-urlencoded';

export interface RouteDoc {
  method: Method;
  /** OpenAPI form with every optional segment present, e.g. /api/v4/dataset/{uuid}/{limit}/{offset}. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: Auth;
  /** Path parameters that are not plain strings (digits, enums). */
  params?: Record<string, z.ZodType>;
  query?: z.ZodObject;
  body?: { media: Media[]; schema: z.ZodType; required: boolean };
  ok: {
    status: 200 | 202 | 302;
    description: string;
    /** JSON answer; absent for the binary, HTML and event-stream kinds. */
    schema?: z.ZodType;
    kind?: 'json' | 'binary' | 'html' | 'javascript' | 'event-stream' | 'openapi' | 'text';
  };
}

const digits = z.string().regex(/^[0-9]+$/);
const limitOffset = { limit: digits, offset: digits };
const json = (schema: z.ZodType, required = true): RouteDoc['body'] => ({ media: ['application/json'], schema, required });
const form = (schema: z.ZodType, required = true): RouteDoc['body'] => ({
  media: ['multipart/form-data', 'application/x-www-form-urlencoded'],
  schema,
  required,
});
const ok = (schema: z.ZodType, description: string): RouteDoc['ok'] => ({ status: 200, description, schema });
const redirect = (description: string): RouteDoc['ok'] => ({
  status: 302,
  description: `${description}; a client that follows it receives the record`,
});
const accepted = (description: string): RouteDoc['ok'] => ({ status: 202, description, schema: TrackedJob });

const V4 = '/api/v4';
const odr = (method: Method, path: string, tag: string, summary: string, rest: Partial<RouteDoc> & { ok: RouteDoc['ok'] }): RouteDoc => ({
  method,
  path: `${V4}${path}`,
  tag,
  summary,
  auth: 'bearer',
  ...rest,
});
const local = (method: Method, path: string, summary: string, rest: Partial<RouteDoc> & { ok: RouteDoc['ok'] }): RouteDoc => ({
  method,
  path: `/local${path}`,
  tag: 'Local (odr-desktop)',
  summary,
  auth: 'query',
  ...rest,
});

const templateRead = (path: string) =>
  odr('get', path, 'Templates and datasets', 'A dataset or template (export form)', {
    description:
      'Template export of a top-level dataset or template: fields, options, tags, child datatypes. Aliases: /template, /master, /search/template, /search/database.',
    ok: ok(Template, 'The template'),
  });
const recordRead = (path: string) => odr('get', path, 'Records', 'One record with its child records', { ok: ok(OdrRecord, 'The record') });
const idList = (path: string, summary: string) =>
  odr('get', path, 'Records', summary, {
    params: path.includes('{recent}') ? { ...limitOffset } : limitOffset,
    description: 'limit 0 = all; an offset past the end is a 400.',
    ok: ok(RecordIdList, 'Ids and names of viewable top-level records'),
  });
const statusRoute = (path: string) =>
  odr('get', path, 'Jobs', 'Status of a tracked job', {
    auth: 'job',
    params: { id: digits, full: z.string().regex(/^[0-9]$/) },
    ok: ok(JobResponse, 'The job'),
  });
const statsRoute = (kind: string, summary: string, schema: z.ZodType) =>
  odr('get', `/search/field/${kind}/{template}/{field}`, 'Search', summary, {
    description: 'Counts only top-level records the caller may read. Radio and Tag fields only.',
    ok: ok(schema, 'Counts'),
  });

export const ROUTES: RouteDoc[] = [
  odr('post', '/token', 'Auth', 'Log in: a JWT for the Authorization header', {
    auth: 'none',
    body: json(TokenRequest),
    ok: ok(TokenResponse, 'The token'),
  }),
  odr('get', '/auth/status', 'Auth', 'Whether the request carries a valid token', { auth: 'none', ok: ok(AuthStatus, '{logged_in}') }),
  odr('get', '/openapi.json', 'Documentation', 'This document', {
    auth: 'none',
    ok: { status: 200, description: 'OpenAPI 3.1 document', kind: 'openapi' },
  }),

  templateRead('/template/{uuid}'),
  templateRead('/master/{uuid}'),
  templateRead('/search/template/{uuid}'),
  templateRead('/search/database/{uuid}'),
  odr('get', '/search/databases', 'Templates and datasets', 'Datasets the caller can see', { ok: ok(DatabaseList, 'Dataset list') }),
  odr('get', '/search/templates', 'Templates and datasets', 'Master templates the caller can see', {
    ok: ok(DatabaseList, 'Template list'),
  }),
  odr('post', '/dataset', 'Templates and datasets', 'Create a dataset from a template', {
    body: form(CreateDatasetForm),
    ok: redirect("302 to the new dataset's first record"),
  }),

  recordRead('/dataset/record/{uuid}'),
  recordRead('/search/record/{uuid}'),
  odr('get', '/dataset/{uuid}/{limit}/{offset}', 'Records', 'A page of full top-level records', {
    params: limitOffset,
    description: 'Default limit 100, offset 0.',
    ok: ok(RecordList, 'Records'),
  }),
  idList('/dataset/{uuid}/modified/records/{recent}/{limit}/{offset}', 'Ids of records changed since `recent` (ms since the epoch)'),
  idList(
    '/search/database/{uuid}/modified/records/{recent}/{limit}/{offset}',
    'Ids of records changed since `recent` (ms since the epoch)',
  ),
  idList('/search/database/{uuid}/records/{limit}/{offset}', 'Ids of every viewable top-level record'),
  odr('post', '/dataset/{uuid}/record', 'Records', 'Create an empty record', {
    body: form(CreateRecordForm, false),
    ok: ok(OdrRecord, 'The new record'),
  }),
  odr('post', '/dataset/record', 'Records', 'Save a record (delta)', { body: json(SaveRecord), ok: ok(OdrRecord, 'The saved record') }),
  odr('put', '/dataset', 'Records', 'Save a record (delta), alias of POST /dataset/record', {
    body: json(SaveRecord),
    ok: ok(OdrRecord, 'The saved record'),
  }),
  odr('post', '/dataset/record/public', 'Records', "Set a record's public date", {
    body: form(PublicForm),
    description:
      'With `expected_public_date` (odr-desktop) the date is set only if the record\'s public date is that now; otherwise 409 with `error.reason: "changed_since"` and `error.holds` (its public date now), and nothing changes. It names a date (YYYY-MM-DD HH:MM:SS or ISO 8601): a relative one ("now", "+1 day") is a 400.',
    ok: ok(OdrRecord, 'The record'),
  }),
  odr('post', '/record/{record}/{field}/value', 'Records', "Set one field's value", {
    body: json(ValueBody),
    description:
      'With `expected_value` (odr-desktop) the value is written only if the field holds that value now (empty: `""` or null); otherwise 409 with `error.reason: "changed_since"` and `error.holds` (what it holds now, null when empty), and nothing changes. Undo sends it so a newer value is never overwritten.',
    ok: ok(OdrRecord, 'The record'),
  }),
  odr('put', '/record/{record}/{field}/{option}/{state}', 'Records', 'Select or unselect an option or tag', {
    params: { state: z.enum(['selected', 'unselected']) },
    query: OptionQuery,
    description:
      "With `?expected=` (odr-desktop: comma-separated option or tag uuids, empty for none) the change is made only if the field's selection is exactly that now; otherwise 409 with `error.reason: changed_since` and `error.holds` (the uuids selected now), and nothing changes.",
    ok: ok(OdrRecord, 'The record'),
  }),
  odr('delete', '/record/{uuid}', 'Records', 'Delete a record', {
    body: json(DeleteRecordsBody, false),
    ok: ok(DeleteResult, 'Deleted uuids'),
  }),
  odr('delete', '/record', 'Records', 'Delete records', { body: json(DeleteRecordsBody), ok: ok(DeleteResult, 'Deleted uuids') }),
  odr('delete', '/dataset/{uuid}', 'Templates and datasets', 'Delete a dataset (to the trash for 30 days)', {
    body: json(z.object({ user_email: z.string().optional() }), false),
    description:
      "Records, child datasets and files go with it; `GET /local/trash` lists deleted datasets and `POST /local/trash/{id}/restore` puts one back. A metadata dataset's uuid deletes the dataset it describes. Dataset admins only.",
    ok: { status: 200, description: 'The text "Deleted", as on the real server', kind: 'text' },
  }),
  odr('post', '/dataset/publish', 'Templates and datasets', 'Publish a dataset with its (metadata) record', {
    description:
      "Form `dataset_uuid`, optional `record_uuid` (default: the dataset's first record), `public_date` (default now; an already public dataset or record keeps its date), `user_email` (act-as, super-users). Sets the public date of the dataset, of the record and every record under it; a metadata dataset also publishes the dataset it describes. Dataset admins only (the real server checks nothing).",
    body: form(PublishForm),
    ok: { status: 302, description: '302 to GET /dataset/{uuid} (the records)' },
  }),
  odr('get', '/jsonld/{uuid}', 'Templates and datasets', "The dataset as schema.org JSON-LD with its records' values", {
    description:
      "Name, description, version, url, creators, keywords and licenses from the dataset's metadata record (the real server's metadata template fields) when there is one; the fields as `variableMeasured`; a page of readable top-level records (`?limit=`, default 1000, at most 10,000; `?offset=`) as `hasPart`, each showing what GET /dataset/record shows the caller.",
    query: JsonLdQuery,
    ok: ok(JsonLdDataset, 'JSON-LD'),
  }),
  odr('get', '/dataset/{uuid}/modified_files/{recent}/{limit}/{offset}', 'Files', 'Names of files on records changed since `recent` (ms)', {
    params: limitOffset,
    description: 'Readable top-level records changed since `recent` and their child records; limit 0 = all.',
    ok: ok(ModifiedFiles, 'File names'),
  }),
  odr('get', '/search/file_download/{id}', 'Files', 'Download a file by its numeric id (legacy)', {
    params: { id: digits },
    ok: { status: 302, description: '302 to GET /file/{uuid}' },
  }),
  odr('get', '/search/image_download/{id}', 'Files', 'Download an image by its numeric id (legacy)', {
    params: { id: digits },
    ok: { status: 302, description: '302 to GET /file/{uuid}' },
  }),
  odr('get', '/dataset/quota/{uuid}', 'Files', "Bytes used by a dataset's files and images", { ok: ok(Quota, 'Quota') }),

  odr('post', '/file', 'Files', 'Upload a file or image (multipart)', {
    body: {
      media: ['multipart/form-data'],
      required: true,
      schema: z.object({
        dataset_uuid: z.string(),
        record_uuid: z.string(),
        field_uuid: z.string().optional(),
        template_field_uuid: z.string().optional(),
        public_date: z.string().optional(),
        created: z.string().optional(),
        display_order: z.string().optional(),
        quality: z.string().optional(),
        user_email: z.string().optional(),
        file: z.string().meta({ format: 'binary' }),
      }),
    },
    ok: redirect('302 to the top-level record'),
  }),
  odr('get', '/file/{uuid}', 'Files', 'Download a file or image', {
    auth: 'query',
    description:
      "Range, ETag/304 and Content-Disposition as a file server. A file whose bytes are only on a sync remote is fetched from it first (502/503 naming the server's answer when that fails).",
    ok: { status: 200, description: 'The bytes', kind: 'binary' },
  }),
  odr('delete', '/file/{uuid}', 'Files', 'Delete a file or image (with its thumbnails)', {
    ok: ok(OdrRecord, 'The record (the real server answers 302 to it)'),
  }),

  odr('post', '/job', 'Jobs', 'Start a tracked job', { auth: 'job', body: json(JobCreateBody), ok: ok(JobResponse, 'The job') }),
  odr('put', '/job', 'Jobs', 'Update a tracked job', { auth: 'job', body: json(JobUpdateBody), ok: ok(JobResponse, 'The job') }),
  odr('post', '/worker/job', 'Jobs', 'Record a unit of work', { auth: 'job', body: json(WorkerJobBody), ok: ok(WorkerUnit, 'The unit') }),
  statusRoute('/job/status'),
  statusRoute('/job/status/{id}'),
  statusRoute('/job/status/{id}/{full}'),
  odr('get', '/job/complete', 'Jobs', 'Complete a job', { auth: 'job', ok: ok(JobResponse, 'The job') }),
  odr('get', '/job/complete/{id}', 'Jobs', 'Complete a job', { auth: 'job', params: { id: digits }, ok: ok(JobResponse, 'The job') }),
  odr('get', '/job/cancel/{id}', 'Jobs', 'Cancel a job', { auth: 'job', params: { id: digits }, ok: ok(JobCancelled, 'Cancelled') }),
  odr('get', '/jobs/{type}', 'Jobs', 'Running jobs of some types (`a|b`)', { auth: 'job', ok: ok(JobList, 'Jobs') }),
  odr('get', '/jobs/completed/{type}/{count}', 'Jobs', 'Recently completed jobs', {
    auth: 'job',
    params: { count: digits },
    ok: ok(JobList, 'Jobs'),
  }),

  odr('post', '/dataset/{uuid}/search/{limit}/{offset}', 'Search', 'Search one dataset by field values', {
    params: limitOffset,
    body: json(DatasetSearchBody),
    description:
      'An empty `fields` list matches every top-level record. Text: contains; `"x"` exact; `""` empty; `!""` filled. Numbers: `5`, `>4 <5`. Options and tags: uuid or name. limit 0 = all.',
    ok: ok(SearchRecords, 'Matching records the caller may read, in database order'),
  }),
  odr('get', '/dataset/search/{key}/{limit}/{offset}/{list}', 'Search', 'Search a dataset with a dataset search key', {
    params: { ...limitOffset, list: z.string().regex(/^[0-9]$/) },
    description:
      'The key is url-safe base64 of `{"dt_id", "gen", "<field id>": value, "<field id>_s"/"_e": dates, "merge"}` as the real server writes it. list=1 answers ids instead of records.',
    ok: ok(DatasetSearchResult, 'Matches (count = this page)'),
  }),
  odr('get', '/search/{key}/{limit}/{offset}', 'Search', 'Search every dataset of a template with a template search key', {
    params: limitOffset,
    description: 'The key is base64 of `{"template_uuid", "general", "fields": [...]}`.',
    ok: ok(SearchRecords, 'Matches'),
  }),
  odr('post', '/search/{limit}/{offset}', 'Search', 'Template search, key in the body', {
    params: limitOffset,
    body: {
      media: ['application/json', 'multipart/form-data', 'application/x-www-form-urlencoded'],
      schema: TemplateSearchPost,
      required: true,
    },
    ok: ok(CountedSearchRecords, 'count = all matches; records = this page'),
  }),
  odr('post', '/legacysearch/{limit}/{offset}', 'Search', 'Older template search', {
    params: limitOffset,
    body: {
      media: ['application/json', 'multipart/form-data', 'application/x-www-form-urlencoded'],
      schema: TemplateSearchPost,
      required: true,
    },
    ok: ok(SearchRecords, 'Matches'),
  }),
  odr('get', '/search/field/{field}', 'Search', 'One template field', { ok: ok(TemplateField, 'The field') }),
  statsRoute('stats', 'Records per option or tag, most used first', FieldStats),
  statsRoute('statsbydataset', 'The template field with a record count on every option or tag', FieldStatsByDataset),
  statsRoute('legacystats', 'Records per option or tag (as stats)', FieldStats),

  odr('post', '/user', 'Users', 'Add a user (or find one) with the datasets they created', {
    description:
      'Super-users only. A new user gets a random password (set one with `npm run odr -- user password` or the Users screen). `datasets`: the first (metadata) record of every dataset the user owns.',
    body: form(UserForm),
    ok: ok(UserAnswer, '{user_email, datasets}'),
  }),
  odr('post', '/user/permissions', 'Users', "Set a user's role on a dataset", {
    description:
      '`permission`: `admin`, `edit_all` (or `edit`), `view_all` (or `view`), `view_only`, or `none` to revoke; one role per user and dataset. Super-users, or the dataset\'s admins for their dataset; not on oneself, not on super-users. `user_email` "" names the caller.',
    body: form(PermissionForm),
    ok: ok(PermissionAnswer, '{"success": "true"}'),
  }),

  {
    method: 'get',
    path: '/api-docs',
    tag: 'Documentation',
    summary: 'Interactive reference of this document (works offline)',
    auth: 'none',
    ok: { status: 200, description: 'HTML page', kind: 'html' },
  },
  {
    method: 'get',
    path: '/api-docs/standalone.js',
    tag: 'Documentation',
    summary: "The reference page's script (Scalar)",
    auth: 'none',
    ok: { status: 200, description: 'JavaScript', kind: 'javascript' },
  },

  local('post', '/session', "The local app's automatic login (same-origin, loopback only)", {
    auth: 'none',
    ok: ok(LocalSession, 'Token and user'),
  }),
  local('get', '/whoami', 'The caller', { ok: ok(SessionUser, 'User') }),
  local('get', '/datasets', 'Dataset summaries for the UI', { ok: ok(DatasetSummaries, 'Datasets') }),
  local('get', '/datasets/{uuid}/records', "The UI's record table: full-text q, sort, paging", {
    query: RecordTableQuery,
    ok: ok(TablePage, 'A page'),
  }),
  local('get', '/datasets/{uuid}/record-uuids', 'uuids of a stretch of the table view (select-all, Shift ranges)', {
    description: 'Same q/sort/dir as the record table; limit up to 200,000 (default all).',
    query: ViewUuidsQuery,
    ok: ok(ViewUuids, 'uuids in view order'),
  }),
  local('post', '/datasets/{uuid}/batch', 'One change (value, option or tag, public/private, or a restore) across many records', {
    description:
      'All or nothing in one transaction, at most 5,000 records; the edit right is checked on every record first. Answers what each changed record held before and what the batch left (`after`), for undo. A `restore` puts back every record that still holds its `after`; records deleted or changed since are left alone and listed in `skipped` with the reason.',
    body: json(BatchRequest),
    ok: ok(BatchResult, 'How many changed, and their earlier state'),
  }),
  local('get', '/records/trash', 'Deleted records (top-level and child) the caller may restore, newest first', {
    description:
      "Entries of the last 30 days that POST /local/records/{uuid}/restore would accept from the caller (its creator or its top-level record's, an editor of its dataset or a super-user); others are left out. A child record names its parent (`parent_uuid`, `parent_name`). `limit` 1 … 500 (default 100), `offset` pages; `total` counts them all.",
    query: RecordTrashQuery,
    ok: ok(RecordTrashList, 'Deleted records'),
  }),
  local(
    'post',
    '/records/{uuid}/restore',
    'Put a deleted record back (same uuid, values, child records, files); a child under its parent',
    {
      description:
        "Deleted records stay restorable for 30 days (undo of a delete). A top-level record's id and place in the list come back when still free; a child record goes back under its parent, which must be there (409 \"restore the parent record first\" otherwise, or that it cannot come back once the parent's entry expired: a child deleted before its parent is an entry of its own). The template is never written: values under fields, options or tags removed since stay under the removed rows or are dropped (named in the log entry). Allowed to whoever could delete it: its creator (of a child: or its top-level record's), an editor of its dataset or a super-user. 404 when it is not in the trash or the caller may not restore it (checked first), 409 when it exists, its dataset or its parent record is deleted. Logged as `record.restore`, so sync sends it.",
      ok: ok(OdrRecord, 'The restored record'),
    },
  ),
  local('get', '/records/{uuid}/history', "A record's history (its and its child records' changes), newest first", {
    description:
      'From the change log: who, when, old and new value (option, tag and file uuids as stored). Gated like a record read; child records the caller may not read are left out. `field` narrows to one field, `limit` ≤ 500 (default 200), `before` pages back by sequence number.',
    query: HistoryQuery,
    ok: ok(RecordHistory, 'History entries'),
  }),
  local('get', '/datasets/{uuid}/position/{record}', 'Where a record sits in the table view (-1: not in it)', {
    query: ViewQuery,
    ok: ok(ViewPosition, 'Its index'),
  }),
  local('get', '/datasets/{uuid}/saved-searches', "The caller's saved searches of a dataset", {
    ok: ok(SavedSearchList, 'Saved searches by name'),
  }),
  local('post', '/datasets/{uuid}/saved-searches', 'Save a search (q, filters, sort) of a dataset under a name', {
    description: 'Fields, options and sort are checked against the dataset (400 naming what is unknown); at most 200 per dataset and user.',
    body: json(SavedSearchCreate),
    ok: ok(SavedSearch, 'The saved search'),
  }),
  local('delete', '/saved-searches/{id}', "Delete one of the caller's saved searches", {
    params: { id: digits },
    ok: ok(SavedSearchDeleted, 'Its id'),
  }),
  local('get', '/datasets/{uuid}/columns', "The caller's column layout of a dataset (null: never chosen)", {
    ok: ok(ColumnLayoutAnswer, 'The layout'),
  }),
  local('put', '/datasets/{uuid}/columns', "Keep the caller's column layout of a dataset: `_id` or field uuids in order, widths", {
    body: json(ColumnLayout),
    ok: ok(ColumnLayoutAnswer, 'The layout kept'),
  }),
  local('delete', '/datasets/{uuid}/columns', "Forget the caller's column layout of a dataset (the default columns again)", {
    ok: ok(ColumnLayoutAnswer, 'null'),
  }),
  local(
    'post',
    '/datasets/{uuid}/export',
    "Export the view (q, filters, sort, columns) as CSV or ODR record-list JSON, optionally zipped with the records' files",
    {
      description: 'Answers 202 and an `export` job; when it completes, `additional_data.download` is the file to GET.',
      body: json(ExportRequest),
      ok: accepted('The export job'),
    },
  ),
  local('get', '/exports/{id}', "The file of one of the caller's finished exports (kept a day)", {
    ok: { status: 200, description: 'CSV, JSON or zip', kind: 'binary' },
  }),
  local('get', '/events', 'Server-sent events: job, records and sync (live status)', {
    ok: { status: 200, description: 'text/event-stream', kind: 'event-stream' },
  }),
  local('get', '/jobs', 'Recent jobs of the caller', {
    query: z.object({ limit: z.string().regex(/^\d+$/).optional() }),
    ok: ok(JobList, 'Jobs'),
  }),
  local('post', '/import', 'Import an ODR export, or CSV rows into a dataset (format=csv), as a job', {
    description:
      'An ODR export (template or record list) by default. With format=csv: the rows become new records of `dataset`; columns go to the fields `mapping` names or whose names match; a row that fails is listed in the job result (row, column, message) and the others are imported. Dataset, right, file and mapping are checked before the job starts (4xx, nothing written).',
    body: {
      media: ['multipart/form-data'],
      required: true,
      schema: z.union([
        z.object({
          file: z.string().meta({ format: 'binary' }),
          format: z.literal('odr').optional(),
          replace: z.string().optional(),
        }),
        CsvImportForm,
      ]),
    },
    ok: accepted('The import job (import or import_csv)'),
  }),
  local('post', '/import/preview', 'What a CSV import would do: the mapping, the first rows and every failing row', {
    body: { media: ['multipart/form-data'], required: true, schema: CsvImportForm.extend({ format: z.literal('csv').optional() }) },
    ok: ok(CsvPreview, 'The preview; nothing is written'),
  }),
  local('post', '/thumbnails/{dataset}', "Rebuild a dataset's thumbnails as a job", { ok: accepted('The job') }),
  local('post', '/sample', 'Generate the synthetic sample dataset as a job', {
    query: z.object({ records: z.string().regex(/^\d+$/).optional() }),
    ok: accepted('The job'),
  }),
  local('get', '/trash', "Datasets deleted in the last 30 days (the caller's; every one for super-users)", {
    ok: ok(TrashList, 'Deleted datasets'),
  }),
  local('post', '/trash/{id}/restore', 'Put a deleted dataset back (same uuids, creators, file bytes)', {
    ok: ok(TrashEntry, 'The restored entry'),
  }),
  local('get', '/users', 'Every user with their dataset roles (super-users)', { ok: ok(UserList, 'Users') }),
  local('post', '/users', 'Add a new user with names, password and super-user status (super-users)', {
    description:
      'Never changes an existing user: 409 when the email is taken (change them with PUT /local/users/{id}). No password: a random one, answered once as generated_password (stored hashed only).',
    body: json(UserCreate),
    ok: ok(UserCreated, 'The new user, with generated_password when none was given'),
  }),
  local('put', '/users/{id}', "Change a user's names, password or super-user status (super-users)", {
    params: { id: digits },
    description: 'The last super-user cannot be demoted (409). Takes effect on the next request of that user, tokens included.',
    body: json(UserUpdate),
    ok: ok(UserSummary, 'The user'),
  }),
  local('get', '/sync', 'Sync state: remotes, datasets, conflicts (super-users)', { ok: ok(SyncStatus, 'Status') }),
  local('get', '/synced-datasets', 'Datasets the caller sees whose files may be only on a sync remote (every user)', {
    ok: ok(SyncedDatasets, 'Dataset uuids'),
  }),
  local('post', '/sync/remotes', 'Attach a remote ODR server', { body: json(AddRemoteRequest), ok: ok(RemoteAdded, 'The remote') }),
  local('get', '/sync/remotes/{id}/datasets', "The remote's dataset list", { params: { id: digits }, ok: ok(DatabaseList, 'Datasets') }),
  local('put', '/sync/remotes/{id}/live', 'Live mode of a remote: on or off, pull interval', {
    params: { id: digits },
    body: json(LiveSettingsRequest),
    ok: ok(LiveStatus, 'Its live status'),
  }),
  local('post', '/sync/focus', 'The window regained focus: live remotes pull now', { ok: ok(LiveStatusList, 'Live statuses') }),
  local('post', '/sync/run', 'Sync datasets with a remote as a job', { body: json(RunSyncRequest), ok: accepted('The sync job') }),
  local('put', '/sync/files-offline', "Keep a synced dataset's files offline (downloads them all as a job) or only fetch them on use", {
    body: json(KeepFilesOfflineRequest),
    ok: ok(KeepFilesOfflineAnswer, 'The choice, and the download job it started'),
  }),
  local('get', '/sync/datasets/{uuid}', 'What stopping syncing a dataset would cost: its files not on this computer', {
    description:
      'Asked before confirming a stop: files never downloaded (bytes only on the server) can no longer be opened here once the dataset is not synced. 404 unknown dataset, 400 a child dataset, 409 when it is not synced.',
    ok: ok(StopSyncingPreview, 'Files not on this computer'),
  }),
  local('delete', '/sync/datasets/{uuid}', 'Stop syncing a dataset: drop its sync state in one step, keep its data here', {
    description:
      'Drops the id map, server copies, unsent operations, conflicts, bin entries and file map of the top-level dataset, for every remote; its records and the files on this computer stay. Files never downloaded would become unavailable: 409 naming how many unless `force=true` (or keep the files offline first). 404 unknown dataset, 400 a child dataset, 409 when it is not synced or a sync of it is running.',
    query: StopSyncingQuery,
    ok: ok(StopSyncingAnswer, 'What was dropped'),
  }),
  local('post', '/sync/attention/{id}', 'Retry or discard an operation the server refused ("needs attention")', {
    params: { id: digits },
    description:
      '`retry` queues it again as it is (a refused delete: the record, back here, is deleted here again); `discard` drops it and sets what it changed here back to the last server copy (a refused create: the record goes to the record trash; a refused upload: the file is deleted here). 404 when no such operation needs attention, 409 when a retry cannot be made (the change is no longer here).',
    body: json(AttentionRequest),
    ok: ok(AttentionAnswer, 'What became of it'),
  }),
  local('post', '/sync/conflicts/{id}', 'Resolve a conflict', {
    params: { id: digits },
    body: json(ResolveConflictRequest),
    ok: ok(ConflictResolved, 'Resolved'),
  }),
];

export { ErrorBody };
