import type { z } from 'zod';
import { DeleteResult, OdrRecord, Quota, RecordList } from '../schemas/record.js';
import { DatabaseList, RecordIdList, Template } from '../schemas/template.js';
import { TokenResponse } from '../schemas/common.js';
import { JobList, JobResponse, TrackedJob, WorkerUnit } from '../schemas/job.js';
import type { SaveRecord } from '../schemas/requests.js';

/** A non-2xx answer, with the ODR error body's code and message (or the lexik flat shape). */
export class OdrApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(`${status} ${message}`);
  }
}

export interface ClientOptions {
  /** e.g. http://127.0.0.1:8460/api/v4 */
  baseUrl: string;
  token?: string;
  fetch?: typeof fetch;
  /** Validate every response against the shared zod schemas (tests, contract checks). */
  strict?: boolean;
}

export type FormValue = string | Blob | { blob: Blob; name: string };

export interface RequestOptions {
  json?: unknown;
  form?: Record<string, FormValue | undefined>;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

function errorMessage(body: unknown, fallback: string): string {
  if (typeof body === 'object' && body !== null) {
    const b = body as { error?: { message?: unknown }; message?: unknown };
    if (typeof b.error?.message === 'string') return b.error.message;
    if (typeof b.message === 'string') return b.message;
  }
  return fallback;
}

/**
 * Sent by odr-desktop's service on every ODR API answer: its value and option writes honour the
 * `expected` guards below (a real ODR server ignores them and sends no such header). A syncing
 * client may then write guarded instead of reading the record first (docs/sync.md §5).
 */
export const GUARDED_WRITES_HEADER = 'odr-guarded-writes';

/** Typed client of the ODR v4 interface; the renderer, the sync engine and the tests share it. */
export class OdrClient {
  readonly baseUrl: string;
  token: string | undefined;
  private readonly fetchImpl: typeof fetch;
  private readonly strict: boolean;

  constructor(opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.token = opts.token;
    this.fetchImpl = opts.fetch ?? ((...a) => fetch(...a));
    this.strict = opts.strict ?? false;
  }

  url(path: string, query?: RequestOptions['query']): string {
    let u = `${this.baseUrl}${path}`;
    if (query) {
      const q = Object.entries(query)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
      if (q.length) u += `?${q.join('&')}`;
    }
    return u;
  }

  /** The raw response (any status); callers that stream or inspect headers use this. */
  async send(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.token && headers.Authorization === undefined) headers.Authorization = `Bearer ${this.token}`;
    if (headers.Authorization === '') delete headers.Authorization;
    let body: RequestInit['body'];
    if (opts.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(opts.json);
    } else if (opts.form) {
      const fd = new FormData();
      for (const [k, v] of Object.entries(opts.form)) {
        if (v === undefined) continue;
        if (typeof v === 'string' || v instanceof Blob) fd.append(k, v);
        else fd.append(k, v.blob, v.name);
      }
      body = fd;
    }
    return this.fetchImpl(this.url(path, opts.query), { method, headers, body, signal: opts.signal });
  }

  async request<T>(method: string, path: string, opts: RequestOptions & { schema?: z.ZodType<T> } = {}): Promise<T> {
    const res = await this.send(method, path, opts);
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON (an HTML redirect stub, a proxy's error page): keep the text
    }
    if (!res.ok) throw new OdrApiError(res.status, errorMessage(body, res.statusText), body);
    if (this.strict && opts.schema) return opts.schema.parse(body);
    return body as T;
  }

  async login(username: string, password: string): Promise<string> {
    const { token } = await this.request('POST', '/token', { json: { username, password }, schema: TokenResponse });
    this.token = token;
    return token;
  }

  template(uuid: string) {
    return this.request('GET', `/template/${uuid}`, { schema: Template });
  }

  databases() {
    return this.request('GET', '/search/databases', { schema: DatabaseList });
  }

  record(uuid: string) {
    return this.request('GET', `/dataset/record/${uuid}`, { schema: OdrRecord });
  }

  list(datasetUuid: string, limit?: number, offset?: number) {
    const tail = limit === undefined ? '' : offset === undefined ? `/${limit}` : `/${limit}/${offset}`;
    return this.request('GET', `/dataset/${datasetUuid}${tail}`, { schema: RecordList });
  }

  recordIds(datasetUuid: string, limit = 0, offset = 0) {
    return this.request('GET', `/search/database/${datasetUuid}/records/${limit}/${offset}`, { schema: RecordIdList });
  }

  modifiedRecordIds(datasetUuid: string, sinceMs: number, limit = 0, offset = 0) {
    return this.request('GET', `/dataset/${datasetUuid}/modified/records/${sinceMs}/${limit}/${offset}`, { schema: RecordIdList });
  }

  createRecord(datasetUuid: string, form: { user_email?: string; public_date?: string; created?: string } = {}) {
    return this.request('POST', `/dataset/${datasetUuid}/record`, { form, schema: OdrRecord });
  }

  save(record: SaveRecord) {
    return this.request('POST', '/dataset/record', { json: record, schema: OdrRecord });
  }

  /** `expected`: write only if the field holds that now (409 otherwise); local service only. */
  setValue(recordUuid: string, fieldUuid: string, value: string | number | boolean | null, expected?: string | number | null) {
    const json = expected === undefined ? { value } : { value, expected_value: expected };
    return this.request('POST', `/record/${recordUuid}/${fieldUuid}/value`, { json, schema: OdrRecord });
  }

  /** `expected`: change only if the field's selection is exactly these uuids now (409 otherwise); local service only. */
  setOption(recordUuid: string, fieldUuid: string, optionUuid: string, selected: boolean, expected?: string[]) {
    return this.request('PUT', `/record/${recordUuid}/${fieldUuid}/${optionUuid}/${selected ? 'selected' : 'unselected'}`, {
      schema: OdrRecord,
      query: expected === undefined ? undefined : { expected: expected.join(',') },
    });
  }

  /** `expected_public_date`: set only if the record's public date is that now (409 otherwise); local service only. */
  setPublic(form: { user_email: string; dataset_uuid: string; record_uuid: string; public_date?: string; expected_public_date?: string }) {
    return this.request('POST', '/dataset/record/public', { form, schema: OdrRecord });
  }

  deleteRecords(uuids: string[]) {
    return this.request('DELETE', '/record', { json: { record_uuids: uuids }, schema: DeleteResult });
  }

  quota(datasetUuid: string) {
    return this.request('GET', `/dataset/quota/${datasetUuid}`, { schema: Quota });
  }

  /** POST /file: the service answers 302 to the record, which fetch follows. */
  uploadFile(
    form: {
      dataset_uuid: string;
      record_uuid: string;
      field_uuid?: string;
      template_field_uuid?: string;
      public_date?: string;
      created?: string;
      display_order?: string;
      quality?: string;
      user_email?: string;
    },
    file: { blob: Blob; name: string },
  ) {
    return this.request('POST', '/file', { form: { ...form, file }, schema: OdrRecord });
  }

  /** A download address that works without headers (<img src>, links). */
  fileUrl(fileUuid: string): string {
    return this.url(`/file/${fileUuid}`, this.token ? { access_token: this.token } : undefined);
  }

  deleteFile(fileUuid: string) {
    return this.request('DELETE', `/file/${fileUuid}`, { schema: OdrRecord });
  }

  // Jobs: the contract's x-auth API token, or this client's Bearer token when none is given.

  private jobHeaders(apiToken?: string) {
    return apiToken ? { 'x-auth': apiToken, Authorization: '' } : undefined;
  }

  createJob(job: { job_type: string; target_entity: string; total: number; additional_data: unknown }, apiToken?: string) {
    return this.request('POST', '/job', { json: { job }, headers: this.jobHeaders(apiToken), schema: JobResponse });
  }

  updateJob(body: { user_email: string; job: Record<string, unknown> }, apiToken?: string) {
    return this.request('PUT', '/job', { json: body, headers: this.jobHeaders(apiToken), schema: JobResponse });
  }

  workerJob(
    body: { user_email: string; job: { tracked_job_id: number; random_key: string; job_order: number; line_count: number } },
    apiToken?: string,
  ) {
    return this.request('POST', '/worker/job', { json: body, headers: this.jobHeaders(apiToken), schema: WorkerUnit });
  }

  jobStatus(id: number, full = 1, apiToken?: string) {
    return this.request('GET', `/job/status/${id}/${full}`, { headers: this.jobHeaders(apiToken), schema: JobResponse });
  }

  completeJob(id: number, apiToken?: string) {
    return this.request('GET', `/job/complete/${id}`, { headers: this.jobHeaders(apiToken), schema: JobResponse });
  }

  cancelJob(id: number, apiToken?: string) {
    return this.request<{ deleted: boolean }>('GET', `/job/cancel/${id}`, { headers: this.jobHeaders(apiToken) });
  }

  runningJobs(types: string[], apiToken?: string) {
    return this.request('GET', `/jobs/${types.join('|')}`, { headers: this.jobHeaders(apiToken), schema: JobList });
  }
}

export type { TrackedJob };
