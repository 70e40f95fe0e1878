import { STATUS_CODES } from 'node:http';
import { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';

/**
 * One call to the remote's API, answered as fetch would answer it (OdrClient reads a Response),
 * through undici's request(): fetch's own machinery (Request objects, web streams, a body
 * mixin) cost a push ~0.3 ms of CPU per call over loopback, and a push makes two calls per
 * operation. Redirects are not followed (the caller follows them, fetch's `redirect: 'manual'`).
 * The body is read whole: API answers are JSON of one record or page (file bytes go through
 * fetch, streamed, in RemoteClient.download).
 */
export async function apiRequest(url: string, init: RequestInit & { signal: AbortSignal }): Promise<Response> {
  const headers: Record<string, string> =
    init.headers instanceof Headers ? Object.fromEntries(init.headers) : { ...(init.headers as Record<string, string> | undefined) };
  let body = init.body as Dispatcher.DispatchOptions['body'] | FormData | undefined;
  if (body instanceof FormData) {
    // A form (an upload) is encoded as fetch would, then streamed: its boundary in the header.
    const encoded = new Response(body);
    headers['content-type'] = encoded.headers.get('content-type')!;
    body = Readable.fromWeb(encoded.body! as import('node:stream/web').ReadableStream);
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
  const bytes = empty ? (await r.body.dump(), null) : await r.body.arrayBuffer();
  return new Response(bytes, { status: r.statusCode, statusText: STATUS_CODES[r.statusCode] ?? '', headers: answered });
}
