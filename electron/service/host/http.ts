import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Service } from '../service.js';
import { FAST_HEADERS } from '../api/fastReads.js';

export interface HttpHost {
  server: Server;
  port: number;
  url: string;
  close: () => Promise<void>;
}

/** Serves the service on 127.0.0.1 only (never on other interfaces). Port 0 picks a free one. */
export async function listen(service: Service, port: number): Promise<HttpHost> {
  const app = getRequestListener(service.fetch);
  const server = createServer((req, res) => {
    const body = service.fastRead(req.method, req.url, req.headers.authorization, req.headers.host);
    if (!body) return app(req, res);
    res.writeHead(200, { ...FAST_HEADERS, 'content-length': body.length });
    res.end(body);
  });
  server.keepAliveTimeout = 30_000;
  // Requests node:http refuses before our handler runs (headers too large, malformed request
  // line) still get the {"error": {"code", "message"}} body every other failure has.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') return socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'HPE_REQUEST_TIMEOUT' ? 408 : 400;
    const message =
      status === 431
        ? 'Request headers (or the URL) are too large'
        : status === 408
          ? 'Request timed out'
          : `Malformed HTTP request (${err.code ?? 'parse error'})`;
    const body = JSON.stringify({ error: { code: status, message } });
    socket.end(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    server,
    port: actual,
    url: `http://127.0.0.1:${actual}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      }),
  };
}
