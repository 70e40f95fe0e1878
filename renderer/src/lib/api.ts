import { OdrApiError, OdrClient } from '../../../shared/client/odrClient';
import type { JobList, TrackedJob } from '../../../shared/schemas/job';
import type { OdrRecord } from '../../../shared/schemas/record';
import type { DatabaseList } from '../../../shared/schemas/template';
import {
  LocalSession,
  RecordTrashList,
  type DatasetSummaries,
  type SessionUser,
  type TablePage,
  type TrashEntry,
  type TrashList,
} from '../../../shared/schemas/local';
import {
  UserList,
  type PermissionName,
  type UserCreate,
  type UserCreated,
  type UserSummary,
  type UserUpdate,
} from '../../../shared/schemas/users';
import type { ViewPosition, ViewQuery, ViewUuids } from '../../../shared/schemas/selection';
import type { BatchRequest, BatchResult } from '../../../shared/schemas/batch';
import type { RecordHistory } from '../../../shared/schemas/history';
import { CsvPreview, type CsvMapping } from '../../../shared/schemas/csvImport';
import type {
  ColumnLayout,
  ColumnLayoutAnswer,
  ExportRequest,
  SavedSearch,
  SavedSearchCreate,
  SavedSearchList,
} from '../../../shared/schemas/view';
import type {
  AddRemoteRequest,
  KeepFilesOfflineAnswer,
  KeepFilesOfflineRequest,
  LiveSettingsRequest,
  LiveStatus,
  ResolveConflictRequest,
  AttentionAnswer,
  AttentionRequest,
  RunSyncRequest,
  StopSyncingAnswer,
  StopSyncingPreview,
  SyncStatus,
  SyncedDatasets,
} from '../../../shared/schemas/sync';

// The renderer reaches data only through HTTP: the ODR v4 interface under /api/v4 and our
// local routes under /local, on the origin that served this page (npm run serve or the
// Electron app scheme).

const origin = window.location.origin;
let renewing: Promise<unknown> | null = null;

/** fetch that renews the local session once when a token has expired (401), then retries. */
async function sessionFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(input, init);
  if (res.status !== 401 || !api.token) return res;
  renewing ??= startSession().finally(() => {
    renewing = null;
  });
  await renewing;
  const headers = new Headers(init.headers);
  headers.set('Authorization', `Bearer ${api.token}`);
  return fetch(input, { ...init, headers });
}

export const api = new OdrClient({ baseUrl: `${origin}/api/v4`, fetch: sessionFetch });

export type { DatasetSummary, TablePage } from '../../../shared/schemas/local';
export type Session = SessionUser;

/** The local app logs in as its first-run user without asking (POST /local/session). */
export async function startSession(): Promise<Session> {
  const res = await fetch(`${origin}/local/session`, { method: 'POST' });
  const body = (await res.json()) as unknown;
  if (!res.ok) throw new Error((body as { error?: { message?: string } }).error?.message ?? `session: ${res.status}`);
  const session = LocalSession.parse(body);
  api.token = session.token;
  return session.user;
}

async function local<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await sessionFetch(`${origin}/local${path}`, { ...init, headers: { Authorization: `Bearer ${api.token}`, ...init.headers } });
  const text = await res.text();
  const body = text ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) {
    const msg = (body as { error?: { message?: string } } | undefined)?.error?.message ?? res.statusText;
    throw new OdrApiError(res.status, msg, body);
  }
  return body as T;
}

export const datasets = () => local<DatasetSummaries>('/datasets').then((r) => r.datasets);

const paramsOf = (q: object) => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') params.set(k, String(v));
  return params;
};

/** `count: 'exact'`: the whole count, not the capped one (TablePage.total_capped). */
export function tablePage(dataset: string, q: ViewQuery & { offset: number; limit: number; count?: 'exact' }) {
  return local<TablePage>(`/datasets/${dataset}/records?${paramsOf(q)}`);
}

/** uuids of a stretch of the view (all of it without offset/limit): ranges and select-all. */
export const viewUuids = (dataset: string, q: ViewQuery & { offset?: number; limit?: number }) =>
  local<ViewUuids>(`/datasets/${dataset}/record-uuids?${paramsOf(q)}`);

/** Where a record sits in the view (-1: not in it). */
export const viewPosition = (dataset: string, record: string, q: ViewQuery) =>
  local<ViewPosition>(`/datasets/${dataset}/position/${record}?${paramsOf(q)}`).then((r) => r.index);

export const recentJobs = () => local<JobList>('/jobs').then((r) => r.jobs);

export function startImport(file: File) {
  const fd = new FormData();
  fd.append('file', file, file.name);
  return local<TrackedJob>('/import', { method: 'POST', body: fd });
}

function csvForm(dataset: string, file: File, mapping: CsvMapping | undefined): FormData {
  const fd = new FormData();
  fd.append('format', 'csv');
  fd.append('dataset', dataset);
  if (mapping) fd.append('mapping', JSON.stringify(mapping));
  fd.append('file', file, file.name);
  return fd;
}

/** What importing the CSV would do (columns → fields, first rows, every failing row); writes nothing. */
export const previewCsv = (dataset: string, file: File, mapping?: CsvMapping) =>
  local<unknown>('/import/preview', { method: 'POST', body: csvForm(dataset, file, mapping) }).then((b) => CsvPreview.parse(b));

/** Starts the CSV import job; its result (additional_data) is a CsvImportResult. */
export const startCsvImport = (dataset: string, file: File, mapping?: CsvMapping) =>
  local<TrackedJob>('/import', { method: 'POST', body: csvForm(dataset, file, mapping) });

export const createSample = (records = 500) => local<TrackedJob>(`/sample?records=${records}`, { method: 'POST' });

export const rebuildThumbnails = (dataset: string) => local<TrackedJob>(`/thumbnails/${dataset}`, { method: 'POST' });

export const syncStatus = () => local<SyncStatus>('/sync');
/** Datasets whose files may be only on the sync remote (every user may ask). */
export const syncedDatasets = () => local<SyncedDatasets>('/synced-datasets').then((r) => r.datasets);

export const savedSearches = (dataset: string) => local<SavedSearchList>(`/datasets/${dataset}/saved-searches`).then((r) => r.searches);
export const saveSearch = (dataset: string, body: SavedSearchCreate) =>
  local<SavedSearch>(`/datasets/${dataset}/saved-searches`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
export const deleteSavedSearch = (id: number) => local<{ deleted: number }>(`/saved-searches/${id}`, { method: 'DELETE' });

export const columnLayout = (dataset: string) => local<ColumnLayoutAnswer>(`/datasets/${dataset}/columns`).then((r) => r.layout);
export const putColumnLayout = (dataset: string, layout: ColumnLayout) =>
  local<ColumnLayoutAnswer>(`/datasets/${dataset}/columns`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(layout),
  });

export const resetColumnLayout = (dataset: string) => local<ColumnLayoutAnswer>(`/datasets/${dataset}/columns`, { method: 'DELETE' });

/** Starts an export job of a view; its file downloads from downloadUrl once the job completes. */
export const startExport = (dataset: string, body: ExportRequest) =>
  local<TrackedJob>(`/datasets/${dataset}/export`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

/** A link the browser (or the desktop shell) downloads: it cannot send a header, so the token rides in the query. */
export const downloadUrl = (path: string) => `${origin}${path}?access_token=${encodeURIComponent(api.token ?? '')}`;

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

/** One change across many records (≤ MAX_BATCH per call), all or nothing; answers their earlier state. */
export const batchEdit = (dataset: string, body: BatchRequest) => local<BatchResult>(`/datasets/${dataset}/batch`, json(body));

/** A record's history and its child records', newest first (GET /local/records/{uuid}/history). */
export const recordHistory = (record: string, q: { field?: string; limit?: number; before?: number } = {}) =>
  local<RecordHistory>(`/records/${record}/history?${paramsOf(q)}`);

export const addRemote = (r: AddRemoteRequest) => local<{ id: number }>('/sync/remotes', json(r));

export const remoteDatasets = (remoteId: number) => local<DatabaseList>(`/sync/remotes/${remoteId}/datasets`).then((r) => r.databases);

/** The window regained focus: live remotes pull now. */
export const syncFocus = () => local<{ live: LiveStatus[] }>('/sync/focus', { method: 'POST' });

export const setLive = (remoteId: number, r: LiveSettingsRequest) =>
  local<LiveStatus>(`/sync/remotes/${remoteId}/live`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(r),
  });

export const keepFilesOffline = (r: KeepFilesOfflineRequest) =>
  local<KeepFilesOfflineAnswer>('/sync/files-offline', { ...json(r), method: 'PUT' });
export const runSync = (r: RunSyncRequest) => local<TrackedJob>('/sync/run', json(r));
export const stopSyncingPreview = (dataset: string) => local<StopSyncingPreview>(`/sync/datasets/${dataset}`);
/** `force`: the files not on this computer (the preview's count) may become unavailable. */
export const stopSyncing = (dataset: string, force: boolean) =>
  local<StopSyncingAnswer>(`/sync/datasets/${dataset}${force ? '?force=true' : ''}`, { method: 'DELETE' });

export const resolveConflict = (id: number, r: ResolveConflictRequest) => local<{ resolved: true }>(`/sync/conflicts/${id}`, json(r));
export const attendParked = (id: number, r: AttentionRequest) => local<AttentionAnswer>(`/sync/attention/${id}`, json(r));

export function eventsUrl(): string {
  return `${origin}/local/events?access_token=${encodeURIComponent(api.token ?? '')}`;
}

/**
 * POST /file through XMLHttpRequest: fetch cannot report upload progress. The service answers
 * 302 to the record, which XHR follows, so the response is the updated record.
 */
export function uploadWithProgress(
  form: { dataset_uuid: string; record_uuid: string; field_uuid: string },
  file: File,
  onProgress: (fraction: number) => void,
): { done: Promise<OdrRecord>; abort: () => void } {
  const xhr = new XMLHttpRequest();
  const done = new Promise<OdrRecord>((resolve, reject) => {
    xhr.open('POST', `${api.baseUrl}/file`);
    xhr.setRequestHeader('Authorization', `Bearer ${api.token}`);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = xhr.responseText;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as OdrRecord);
      else reject(new OdrApiError(xhr.status, (body as { error?: { message?: string } })?.error?.message ?? xhr.statusText, body));
    };
    xhr.onerror = () => reject(new Error('The upload failed: the service could not be reached'));
    xhr.onabort = () => reject(new Error('Upload cancelled'));
    const fd = new FormData();
    for (const [k, v] of Object.entries(form)) fd.append(k, v);
    fd.append('file', file, file.name);
    xhr.send(fd);
  });
  return { done, abort: () => xhr.abort() };
}

/** The service does not have it (any more): deleted, here or elsewhere, or out of the caller's view. */
export const notFound = (e: unknown) => e instanceof OdrApiError && e.status === 404;

export function errorText(e: unknown): string {
  if (e instanceof OdrApiError) return e.message.replace(/^\d+ /, '');
  if (e instanceof Error) return e.message;
  return String(e);
}

// Users and roles (super-users), the trash, dataset delete.
export const listUsers = () => local<UserList>('/users').then((r) => UserList.parse(r).users);
/** POST /local/users: a new user only (409 when the email is taken). */
export const createUser = (user: UserCreate) => local<UserCreated>('/users', { ...json(user), method: 'POST' });
export const updateUser = (id: number, change: UserUpdate) => local<UserSummary>(`/users/${id}`, { ...json(change), method: 'PUT' });
/** POST /api/v4/user/permissions; `none` revokes. */
export const setRole = (user_email: string, dataset_uuid: string, permission: PermissionName) =>
  api.request<{ success: 'true' }>('POST', '/user/permissions', { form: { user_email, dataset_uuid, permission } });
export const trash = () => local<TrashList>('/trash').then((r) => r.datasets);
export const restoreTrash = (id: string) => local<TrashEntry>(`/trash/${id}/restore`, { method: 'POST' });
/** Deleted top-level records the caller may restore (the Trash panel after a reload). */
export const recordTrash = () => local<unknown>('/records/trash?limit=200').then((b) => RecordTrashList.parse(b));
/** A deleted top-level record back from the service's record trash (undo of a delete). */
export const restoreRecord = (uuid: string) => local<OdrRecord>(`/records/${uuid}/restore`, { method: 'POST' });
export const deleteDataset = (uuid: string) => api.request<string>('DELETE', `/dataset/${uuid}`);
export const datasetQuota = (uuid: string) => api.quota(uuid);
