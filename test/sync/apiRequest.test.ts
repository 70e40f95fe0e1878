import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { apiRequest } from '../../electron/service/sync/apiRequest.js';

// undici's request() (which replaced fetch for API calls) sent no Accept or User-Agent, which a
// server behind a WAF may refuse, and decoded no compressed answer, which a proxy may send anyway.

const ANSWER = { records: [{ record_uuid: 'abc1234', fields: [] }] };
let server: Server;
let base = '';
let seen: IncomingHttpHeaders = {};

beforeAll(async () => {
  server = createServer((req, res) => {
    seen = req.headers;
    const json = Buffer.from(JSON.stringify(ANSWER));
    const encoding = req.url!.slice(1);
    const body = encoding === 'gzip' ? gzipSync(json) : encoding === 'br' ? brotliCompressSync(json) : json;
    res.writeHead(200, { 'content-type': 'application/json', ...(encoding !== 'plain' ? { 'content-encoding': encoding } : {}) });
    res.end(body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

const call = (path: string, headers?: Record<string, string>) =>
  apiRequest(`${base}${path}`, { headers, signal: AbortSignal.timeout(5000) });

describe('API calls to the remote', () => {
  it("send accept: application/json and a user-agent naming this app and its version; a caller's own header wins", async () => {
    await (await call('/plain')).json();
    expect(seen.accept).toBe('application/json');
    expect(seen['user-agent']).toBe(`odr-desktop/${pkg.version}`);
    await (await call('/plain', { Accept: 'text/plain' })).text();
    expect(seen.accept).toBe('text/plain');
  });

  it('decode a gzip or brotli answer a proxy compressed unasked', async () => {
    for (const enc of ['gzip', 'br']) {
      const r = await call(`/${enc}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-encoding'), enc).toBeNull();
      expect(await r.json(), enc).toEqual(ANSWER);
    }
  });

  it('refuse, naming it, an encoding this app cannot read, or a body that does not decode', async () => {
    await expect(call('/zstd-ish')).rejects.toThrow(/content-encoding this app cannot read: zstd-ish/);
    // Labelled deflate, sent as plain JSON.
    await expect(call('/deflate')).rejects.toThrow(/deflate answer to .* could not be decoded/);
  });
});
