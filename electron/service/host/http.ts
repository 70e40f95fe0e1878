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
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    server,
    port: actual,
    url: `http://127.0.0.1:${actual}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 2000).unref();
    }),
  };
}
