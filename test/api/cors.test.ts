import { Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { describe, expect, it } from 'vitest';
import { CORS_OPTIONS, corsMiddleware } from '../../electron/service/api/cors.js';

// corsMiddleware answers preflights with hono's cors() and adds its headers to other answers
// itself (api/cors.ts says why): every answer must carry exactly what cors() would give it.

function appWith(mw: MiddlewareHandler) {
  const app = new Hono();
  app.onError((e, c) => c.json({ error: { code: 400, message: e.message } }, 400));
  app.use('*', mw);
  app.get('/json', (c) => c.json({ ok: true }));
  app.post('/bytes', (c) => c.body('{"a":1}', 200, { 'content-type': 'application/json', etag: '"x"' }));
  app.get('/throws', () => {
    throw new Error('no');
  });
  app.get('/raw', () => new Response('raw', { status: 201, headers: { 'x-own': '1' } }));
  return app;
}

const requests: [string, RequestInit][] = [
  ['/json', {}],
  ['/json', { headers: { origin: 'http://example.org' } }],
  ['/bytes', { method: 'POST', body: '{}' }],
  ['/throws', {}],
  ['/raw', {}],
  ['/missing', {}],
  ['/json', { method: 'OPTIONS', headers: { origin: 'http://example.org', 'access-control-request-method': 'POST' } }],
  ['/bytes', { method: 'OPTIONS', headers: { 'access-control-request-headers': 'content-type' } }],
];

describe('CORS headers', () => {
  const ours = appWith(corsMiddleware());
  const hono = appWith(cors(CORS_OPTIONS));
  it.each(requests)('%s %o: the same status, headers and body as cors()', async (path, init) => {
    const [a, b] = await Promise.all([ours.request(path, init), hono.request(path, init)]);
    expect(a.status).toBe(b.status);
    expect(Object.fromEntries(a.headers)).toEqual(Object.fromEntries(b.headers));
    expect(await a.text()).toBe(await b.text());
    if (init.method !== 'OPTIONS') expect(a.headers.get('access-control-allow-origin')).toBe('*');
  });
});
