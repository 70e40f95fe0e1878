import { GUARDED_WRITES_HEADER, OdrApiError, OdrClient } from '../../../shared/client/odrClient.js';
import { normalizeRecord } from '../../../shared/legacy.js';
import type { FieldTypeName } from '../../../shared/fieldTypes.js';
import type { OdrRecord } from '../../../shared/schemas/record.js';
import { apiRequest } from './apiRequest.js';
import { networkFailureText } from './networkFailure.js';

/** Why a remote call failed, which decides what the engine does next (docs/sync.md §7). */
export type FailureKind = 'transient' | 'ambiguous' | 'auth' | 'permanent' | 'gone';

export class RemoteError extends Error {
  /** How long the server asked us to wait (Retry-After), when it did. */
  retryAfterMs?: number;
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * The real server's answer to a write on a child record that it has done: 400 "Only permitted on
 * top-level datarecords" (odr-v4-behaviour §5.10). Only that 400 means done; any other refused
 * the write, and taken for done its value would become the base the server does not hold.
 */
export const childWriteDone = (e: unknown): boolean =>
  e instanceof RemoteError && e.status === 400 && /only permitted on top-level datarecords/i.test(e.message);

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function parseRetryAfter(h: string | null, nowMs = Date.now()): number | null {
  if (!h) return null;
  if (/^\d+$/.test(h.trim())) return Number(h.trim()) * 1000;
  const at = Date.parse(h);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : null;
}

const TIMEOUT_MS = 15_000;
const NO_GUARDS: ReadonlySet<string> = new Set();
const READ_ATTEMPTS = 3;

/** Decodes the HTML entities the real server leaves in names (`&amp;`, `&#039;`). */
export function decodeHtml(s: string): string {
  return s.replace(
    /&(amp|lt|gt|quot|#0?39|#x27);/g,
    (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#039': "'", '#39': "'", '#x27': "'" })[e] ?? _m,
  );
}

/** What the clients of one remote share: its token, and the login under way if any. */
export interface RemoteSession {
  token?: string;
  login?: Promise<string>;
  /** See RemoteClient.guards (and the header as said): kept here, so the next pass knows before its first answer. */
  guards?: { said: string; set: ReadonlySet<string> };
}

/**
 * The remote ODR server as the sync engine sees it: the shared typed client plus re-login on
 * 401, a timeout on every call, failures classified, and real-server quirks smoothed over.
 * `sent` tells whether a failed write may have reached the server (then it is "ambiguous").
 */
export class RemoteClient {
  readonly client: OdrClient;
  /** The server's clock (its Date header) at the last answer: pull cursors are in server time. */
  serverTime: number | null = null;
  /**
   * The writes the server said it guards, on its last answer (GUARDED_WRITES_HEADER: an
   * odr-desktop service; a real ODR server names none). Taken from every answer, so a server
   * that stops saying so (another one behind the same address, a proxy dropping the header) is
   * read first again at once.
   */
  get guards(): ReadonlySet<string> {
    return this.session.guards?.set ?? NO_GUARDS;
  }
  /** Successful answers so far: live mode reads it to tell a pass that reached the server. */
  okAnswers = 0;
  /** Retry-After of the last failed answer. */
  private retryAfterMs: number | null = null;

  /**
   * `session`: a token shared by the clients of one remote (SyncService's), so that a file
   * fetched after a sync run, or the next run, does not log in again (a login costs the server a
   * password hash: ~60 ms on a loopback remote here, 4× a 4 MB file's download). Calls that need
   * a token at the same time (push concurrency, file fetches) wait for the one login under way.
   */
  constructor(
    readonly baseUrl: string,
    private readonly username: string,
    private readonly password: string,
    private readonly session: RemoteSession = {},
  ) {
    // The 302 answers of create/publish/upload/file-delete (docs/odr-server.md §9.5) are followed
    // here, not by fetch: behind a proxy the Location may name another origin, to which fetch
    // would not send the Authorization header. An API route is read again through our base URL.
    this.client = new OdrClient({
      baseUrl,
      fetch: async (input, init) => {
        const signal = AbortSignal.timeout(TIMEOUT_MS);
        let res = await apiRequest(typeof input === 'string' ? input : input.toString(), { ...init, signal });
        for (let hops = 0; hops < 5 && res.status >= 301 && res.status <= 308 && res.headers.get('location'); hops++) {
          const next = this.rebased(new URL(res.headers.get('location')!, typeof input === 'string' ? input : input.toString()));
          await res.body?.cancel();
          const keep = res.status === 307 || res.status === 308;
          const headers = new Headers(init?.headers);
          if (!keep) headers.delete('content-type');
          if (!next.sameApi) headers.delete('authorization');
          res = await apiRequest(next.url, {
            method: keep ? init?.method : 'GET',
            headers,
            body: keep ? init?.body : undefined,
            signal,
          });
        }
        const date = Date.parse(res.headers.get('date') ?? '');
        if (Number.isFinite(date)) this.serverTime = date;
        const guards = res.headers.get(GUARDED_WRITES_HEADER) ?? '';
        if (guards !== this.session.guards?.said)
          this.session.guards = {
            said: guards,
            set: new Set(
              guards
                .split(',')
                .map((g) => g.trim())
                .filter(Boolean),
            ),
          };
        if (!res.ok) this.retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
        else this.okAnswers++;
        return res;
      },
    });
  }

  /** A redirect into the server's API goes through our base URL (same token, same route). */
  private rebased(loc: URL): { url: string; sameApi: boolean } {
    const base = new URL(this.baseUrl);
    if (loc.origin === base.origin) return { url: loc.toString(), sameApi: true };
    if (loc.pathname.startsWith(base.pathname)) return { url: `${base.origin}${loc.pathname}${loc.search}`, sameApi: true };
    return { url: loc.toString(), sameApi: false };
  }

  private classify(e: unknown, write: boolean): RemoteError {
    if (e instanceof RemoteError) return e;
    if (e instanceof OdrApiError) {
      // Some server builds answer an expired token with 500 "Token was not found" (docs/odr-server.md §9.3).
      if (e.status === 401 || (e.status === 500 && /token was not found/i.test(e.message)))
        return new RemoteError('auth', e.message, e.status);
      if (e.status === 404) return new RemoteError('gone', e.message, 404);
      if (e.status === 429 || e.status >= 500) {
        const err = new RemoteError(write ? 'ambiguous' : 'transient', e.message, e.status);
        if (this.retryAfterMs !== null) err.retryAfterMs = this.retryAfterMs;
        return err;
      }
      return new RemoteError('permanent', e.message, e.status);
    }
    // No answer (reset, refused, timeout): a write may or may not have been applied.
    return new RemoteError(write ? 'ambiguous' : 'transient', networkFailureText(e));
  }

  /** Logs in, or waits for the session's login already under way, and takes its token. */
  async login(): Promise<void> {
    const s = this.session;
    s.login ??= this.client
      .login(this.username, this.password)
      .then((token) => (s.token = token))
      .catch((e: unknown) => {
        const err = this.classify(e, false);
        throw err.kind === 'gone' || err.status === 400 ? new RemoteError('auth', `login failed: ${err.message}`, err.status) : err;
      })
      .finally(() => (s.login = undefined));
    this.client.token = await s.login;
  }

  /** After a 401 with `refused`: a newer token of the session is taken as it is, else a login. */
  private async renew(refused: string | undefined): Promise<void> {
    if (this.session.token && this.session.token !== refused) this.client.token = this.session.token;
    else await this.login();
  }

  /**
   * Runs a call, logging in first or again after a 401. Reads that fail transiently are tried
   * again a few times here, so one dropped connection does not cost the whole pass; writes are
   * never repeated blindly (the engine decides, knowing whether the write is idempotent).
   */
  async call<T>(fn: (c: OdrClient) => Promise<T>, write = false): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.callOnce(fn, write);
      } catch (e) {
        if (write || !(e instanceof RemoteError) || e.kind !== 'transient' || attempt >= READ_ATTEMPTS) throw e;
        await new Promise((res) => setTimeout(res, 50 * 4 ** attempt * (0.5 + Math.random())));
      }
    }
  }

  private async callOnce<T>(fn: (c: OdrClient) => Promise<T>, write: boolean): Promise<T> {
    // Another client of the session may have logged in since (or again, after a 401 here).
    if (this.session.token && this.session.token !== this.client.token) this.client.token = this.session.token;
    if (!this.client.token) await this.login();
    const used = this.client.token;
    try {
      return await fn(this.client);
    } catch (e) {
      const err = this.classify(e, write);
      if (err.kind !== 'auth') throw err;
      await this.renew(used);
      try {
        return await fn(this.client);
      } catch (e2) {
        throw this.classify(e2, write);
      }
    }
  }

  /**
   * GET /file/{uuid} with the Bearer token (the record's `href` is a cookie-session web route on
   * real servers, docs/odr-server.md §9.10). The answer's headers must come within the usual
   * timeout; the body is the caller's to read (and to give up on when it stalls).
   */
  async download(fileUuid: string): Promise<Response> {
    return this.call(async (c) => {
      const ctl = new AbortController();
      const timer = setTimeout(() => ctl.abort(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
      let res: Response;
      try {
        res = await fetch(`${this.baseUrl}/file/${encodeURIComponent(fileUuid)}`, {
          headers: { Authorization: `Bearer ${c.token ?? ''}` },
          signal: ctl.signal,
        });
      } finally {
        clearTimeout(timer);
      }
      if (!res.ok) {
        this.retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
        const text = await res.text().catch(() => '');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // a proxy's HTML page: the status says enough
        }
        const m = (body as { error?: { message?: unknown } } | null)?.error?.message;
        throw new OdrApiError(res.status, typeof m === 'string' ? m : res.statusText || 'error', body);
      }
      return res;
    });
  }

  /** A top-level record, normalised from whatever server variant answered. */
  async record(uuid: string, types?: Map<string, FieldTypeName>): Promise<OdrRecord> {
    return normalizeRecord(await this.recordRaw(uuid), types);
  }

  /** A top-level record as the server sent it: normalised later, once the field types are known. */
  recordRaw(uuid: string): Promise<unknown> {
    return this.call((c) => c.request<unknown>('GET', `/dataset/record/${uuid}`));
  }

  /** Ids of a dataset's records changed since `sinceMs` (server time); an empty list may be a 404. */
  async modifiedIds(dataset: string, sinceMs: number): Promise<string[]> {
    try {
      const r = await this.call((c) => c.modifiedRecordIds(dataset, sinceMs));
      return r.records.map((x) => x.unique_id);
    } catch (e) {
      if (e instanceof RemoteError && e.kind === 'gone') return [];
      throw e;
    }
  }

  async allIds(dataset: string): Promise<string[]> {
    try {
      const r = await this.call((c) => c.recordIds(dataset));
      return r.records.map((x) => x.unique_id);
    } catch (e) {
      if (e instanceof RemoteError && e.kind === 'gone') return [];
      throw e;
    }
  }

  /** A page of full records (first pull); the real server answers an empty page with 404. */
  async page(dataset: string, limit: number, offset: number, types?: Map<string, FieldTypeName>): Promise<OdrRecord[]> {
    try {
      const r = await this.call((c) => c.request<{ records: unknown[] }>('GET', `/dataset/${dataset}/${limit}/${offset}`));
      return r.records.map((x) => normalizeRecord(x, types));
    } catch (e) {
      if (e instanceof RemoteError && (e.kind === 'gone' || e.status === 400)) return [];
      throw e;
    }
  }
}
