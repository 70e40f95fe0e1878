import type { Domain } from '../domain/domain.js';
import { canRead } from '../domain/access.js';
import type { Tokens } from './auth.js';
import { API_HEADERS, SIMPLE_CORS_HEADERS } from './cors.js';
import { API_PREFIX } from './routes/context.js';

// Record reads are most of the traffic (the UI, scripts, a remote syncing from us), and once a
// record's JSON is cached the work left is the framework's: a Request object, the middleware
// chain, a Response, streaming it back. For the plainest case — GET of one record with a Bearer
// token verified before — the host asks here first and writes the cached bytes itself. Anything
// else (unknown token, no such record, no right to read it, a query string, a .json suffix, an
// error) answers null and goes through the full app, which gives the same bytes and headers
// (the test compares them) and every error body.

const RECORD_GET = /^\/api\/v4\/(?:dataset|search)\/record\/([A-Za-z0-9_-]+)$/;
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The headers the app's route and its CORS middleware send with a record. */
export const FAST_HEADERS = { ...SIMPLE_CORS_HEADERS, ...API_HEADERS, 'content-type': 'application/json' };

export type FastRead = (
  method: string | undefined,
  url: string | undefined,
  authorization: string | undefined,
  host: string | undefined,
) => Buffer | null;

export function fastReads(d: Domain, tokens: Tokens): FastRead {
  return (method, url, authorization, host) => {
    if (method !== 'GET' || !url || !authorization || !host) return null;
    const m = RECORD_GET.exec(url);
    if (!m) return null; // a .json suffix or a query string does not match
    const token = BEARER.exec(authorization)?.[1];
    const user = token ? tokens.known(token) : null;
    if (!user) return null;
    const apiBase = `http://${host}${API_PREFIX}`;
    try {
      // A record this viewer read before and nothing changed since: no row read, no check.
      const known = d.knownJson(user, m[1]!, apiBase);
      if (known) return known;
      const rec = d.store.byUuid(m[1]!);
      if (!rec || !canRead(d, user, rec)) return null;
      return d.renderJson(rec, { viewer: user, now: d.now(), apiBase });
    } catch {
      return null; // the app answers it, with its error body
    }
  };
}
