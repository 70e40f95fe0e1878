import type { Context } from 'hono';
import type { AppEnv } from '../auth.js';
import type { Domain } from '../../domain/domain.js';
import type { RenderOptions } from '../../domain/recordReader.js';
import type { RecordRow } from '../../store/rows.js';
import type { User } from '../../domain/users.js';

export const API_PREFIX = '/api/v4';

/** Absolute API base of this request, for file hrefs and redirects. */
export function apiBase(c: Context): string {
  const url = c.req.url;
  const i = url.indexOf(API_PREFIX);
  return i >= 0 ? url.slice(0, i + API_PREFIX.length) : new URL(url).origin + API_PREFIX;
}

export function renderOpts(c: Context<AppEnv>, d: Domain, viewer: User, legacyKeys = false): RenderOptions {
  return { viewer, now: d.now(), apiBase: apiBase(c), legacyKeys };
}

/** A 200 with JSON bytes already rendered (the rendered-record cache's answers). */
export function sendJson(c: Context, bytes: Uint8Array): Response {
  return c.body(bytes as Uint8Array<ArrayBuffer>, 200, { 'content-type': 'application/json' });
}

/**
 * A group-committed mutation answered with the record as it left it. The answer's rows are read
 * inside the write's own transaction (its savepoint in the batch): every read then rides the
 * write lock already held, where a render after the commit opened a read transaction per
 * statement (the read check's schema and row reads, the tree's four queries: ~10 WAL read-lock
 * round trips per write). Its JSON is assembled from those rows after the commit, as each answer
 * is sent, so that work still runs while the batch's first answered clients send their next
 * writes. It is rendered uncached (the cache's reference render, so the bytes are the same) and
 * enters the cache once the batch is durable.
 */
export async function writtenRecordJson(c: Context<AppEnv>, d: Domain, viewer: User, write: () => RecordRow): Promise<Response> {
  const opts = renderOpts(c, d, viewer);
  const answer = await d.writes.run(() => d.renderWrittenJson(write(), opts));
  return sendJson(c, answer());
}

/** The record as JSON bytes for this request's viewer (cached; see domain/renderCache). */
export function recordJson(c: Context<AppEnv>, d: Domain, rec: RecordRow, viewer: User): Response {
  return sendJson(c, d.renderJson(rec, renderOpts(c, d, viewer)));
}
