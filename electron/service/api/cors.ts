import type { Context, Next } from 'hono';
import { cors } from 'hono/cors';
import { GUARDED_WRITES_HEADER } from '../../../shared/client/odrClient.js';

// The real server answers preflights with 405, which breaks browser clients; we answer them.
export const CORS_OPTIONS = {
  origin: '*',
  allowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
  allowHeaders: ['Authorization', 'Content-Type', 'x-auth', 'Range', 'If-None-Match'],
  exposeHeaders: ['Content-Disposition', 'Content-Length', 'Content-Range', 'Accept-Ranges', 'ETag', 'Location'],
  maxAge: 86400,
};

/**
 * What hono's cors() adds to an answer that is not a preflight, with these options (any origin,
 * no credentials: no Vary). test/api/cors.test.ts checks it against cors() itself.
 */
export const SIMPLE_CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': CORS_OPTIONS.exposeHeaders.join(','),
} as const;

/**
 * Preflights are answered by cors(). Other requests get its two headers on the route's own
 * answer, after the route made it: cors() sets them on `c.res` before the route runs, so hono
 * then rebuilds the route's answer as a full web Response to merge them (about a tenth of a
 * small write's CPU).
 */
export function corsMiddleware(extra: Record<string, string> = {}) {
  const preflight = cors(CORS_OPTIONS);
  const headers = Object.entries({ ...SIMPLE_CORS_HEADERS, ...extra });
  return async (c: Context, next: Next) => {
    if (c.req.method === 'OPTIONS') return preflight(c, next);
    await next();
    for (const [k, v] of headers) c.res.headers.set(k, v);
  };
}

/**
 * Ours on every ODR API answer (the same middleware, no second pass over the answer): a syncing
 * odr-desktop learns which writes here take guards (docs/sync.md §5): values, options, Booleans
 * (a value write on a Boolean field) and public dates.
 */
export const API_HEADERS = { [GUARDED_WRITES_HEADER]: 'value, option, boolean, public_date' } as const;
