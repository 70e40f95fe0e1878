import { STATUS_CODES } from 'node:http';
import { Readable } from 'node:stream';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { request, type Dispatcher } from 'undici';
import pkg from '../../../package.json' with { type: 'json' };

/** Sent unless the caller sets them: fetch sent some, and servers behind a WAF refuse calls without. */
const DEFAULTS: Record<string, string> = { accept: 'application/json', 'user-agent': `odr-desktop/${pkg.version}` };

// What fetch would decode: a proxy may compress an answer though nothing asked for it.
const DECODERS: Record<string, (b: Buffer) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/**
 * One call to the remote's API, answered as fetch would answer it (OdrClient reads a Response),
 * through undici's request(): fetch's own machinery (Request objects, web streams, a body
 * mixin) cost a push ~0.3 ms of CPU per call over loopback, and a push makes two calls per
 * operation. Redirects are not followed (the caller follows them, fetch's `redirect: 'manual'`).
 * The body is read whole: API answers are JSON of one record or page (file bytes go through
 * fetch, streamed, in RemoteClient.download).
 */
export async function apiRequest(url: string, init: RequestInit & { signal: AbortSignal }): Promise<Response> {
  const given: Record<string, string> =
    init.headers instanceof Headers ? Object.fromEntries(init.headers) : { ...(init.headers as Record<string, string> | undefined) };
  const headers: Record<string, string> = { ...DEFAULTS };
  for (const [k, v] of Object.entries(given)) headers[k.toLowerCase()] = v;
  let body = init.body as Dispatcher.DispatchOptions['body'] | FormData | undefined;
  if (body instanceof FormData) {
    // A form (an upload) is encoded as fetch would, then streamed: its boundary in the header.
    const encoded = new Response(body);
    headers['content-type'] = encoded.headers.get('content-type')!;
    // Readable.from, not Readable.fromWeb: fromWeb cancels the stream at once when undici drops
    // the body (an answer before it was all sent), even with a read pending; Node 20's undici
    // then closes the form's stream twice and throws ERR_INVALID_STATE outside any promise (seen
    // in test/api/openapi.test.ts). The async iterator cancels only after the pending read.
    body = Readable.from(encoded.body! as AsyncIterable<Uint8Array>);
  }
  const r = await request(url, {
    method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
    headers,
    body,
    signal: init.signal,
  });
  const answered = new Headers();
  for (const [k, v] of Object.entries(r.headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) answered.append(k, one);
  }
  // fetch gives these no body (a Response may not have one).
  const empty = r.statusCode === 204 || r.statusCode === 205 || r.statusCode === 304;
  const bytes = empty ? (await r.body.dump(), null) : decoded(url, answered, await r.body.arrayBuffer());
  return new Response(bytes, { status: r.statusCode, statusText: STATUS_CODES[r.statusCode] ?? '', headers: answered });
}

/** The body with its content-encoding undone (the headers then name none); an encoding not known here is refused. */
function decoded(url: string, headers: Headers, body: ArrayBuffer): ArrayBuffer {
  const codings = (headers.get('content-encoding') ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  if (!codings.length) return body;
  for (const c of codings) if (!DECODERS[c]) throw new Error(`The remote answered ${url} in a content-encoding this app cannot read: ${c}`);
  let out: Buffer = Buffer.from(body);
  try {
    // Applied in the order listed, so undone from the last.
    for (const c of codings.reverse()) out = DECODERS[c]!(out);
  } catch (e) {
    throw new Error(`The remote's ${codings.join(', ')} answer to ${url} could not be decoded: ${(e as Error).message}`, { cause: e });
  }
  headers.delete('content-encoding');
  headers.delete('content-length');
  return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer;
}
