import type { TrackedJob } from '../../../shared/schemas/job.js';
import { createService, type Service } from '../service.js';
import { keyBox } from '../sync/secrets.js';
import { listen, type HttpHost } from './http.js';
import { serveRenderer } from './static.js';
import { chunkStream, pump, type FromService, type Port, type ToService } from './wire.js';

/**
 * The service process: opens the data dir, answers the app's HTTP requests arriving as
 * messages, runs jobs, sync and the optional loopback listener, and reports job progress.
 * Everything synchronous (SQLite, imports) blocks this process, never the window's.
 */
export function runServiceProcess(port: Port<ToService, FromService>, exit: (code: number) => void): void {
  let service: Service | null = null;
  let host: HttpHost | null = null;
  const bodies = new Map<number, ReturnType<typeof chunkStream>>();
  const cancelled = new Set<number>();

  const answer = async (m: Extract<ToService, { t: 'req' }>) => {
    let body: ReadableStream<Uint8Array> | undefined;
    if (m.body) {
      const s = chunkStream(() => {});
      bodies.set(m.id, s);
      body = s.stream;
    }
    try {
      const req = new Request(m.url, { method: m.method, headers: m.headers, body, ...(body ? { duplex: 'half' } : {}) } as RequestInit);
      const res = await service!.fetch(req);
      port.post({ t: 'res', id: m.id, status: res.status, headers: [...res.headers] });
      if (res.body)
        await pump(
          res.body,
          (chunk) => port.post({ t: 'chunk', id: m.id, chunk }),
          () => cancelled.has(m.id),
        );
      port.post({ t: 'done', id: m.id });
    } catch (e) {
      port.post({ t: 'fail', id: m.id, message: e instanceof Error ? e.message : String(e) });
    } finally {
      bodies.delete(m.id);
      cancelled.delete(m.id);
    }
  };

  const call = async (m: Extract<ToService, { t: 'call' }>): Promise<unknown> => {
    if (m.name === 'setLoopback') {
      if (host) await host.close();
      host = m.arg.enabled ? await listen(service!, m.arg.port) : null;
      return host ? `${host.url}/api/v4` : null;
    }
    if (host) await host.close();
    await service?.close();
    return null;
  };

  port.onMessage((m) => {
    switch (m.t) {
      case 'init':
        void createService({
          dataDir: m.init.dataDir,
          nativeBinding: m.init.nativeBinding,
          static: serveRenderer(m.init.rendererDist),
          ...(m.init.secretKey ? { secrets: keyBox(Buffer.from(m.init.secretKey, 'base64')) } : {}),
        }).then(
          (s) => {
            service = s;
            s.ctx.events.on('job', ({ job }: { job: TrackedJob }) => port.post({ t: 'job', job }));
            port.post({ t: 'ready', firstRun: s.firstRun });
          },
          (e: unknown) => {
            port.post({ t: 'fatal', message: e instanceof Error ? e.message : String(e) });
            exit(1);
          },
        );
        return;
      case 'req':
        void answer(m);
        return;
      case 'body':
        bodies.get(m.id)?.push(m.chunk);
        return;
      case 'end':
        bodies.get(m.id)?.end();
        return;
      case 'cancel':
        cancelled.add(m.id);
        bodies.get(m.id)?.fail(new Error('request cancelled'));
        return;
      case 'call':
        call(m)
          .then(
            (value) => port.post({ t: 'reply', id: m.id, value }),
            (e: unknown) => port.post({ t: 'reply', id: m.id, error: e instanceof Error ? e.message : String(e) }),
          )
          .finally(() => {
            if (m.name === 'close') exit(0);
          });
        return;
    }
  });
}
