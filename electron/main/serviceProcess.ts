import type { TrackedJob } from '../../shared/schemas/job.js';
import { chunkStream, pump, type FromService, type ServiceInit, type ToService } from '../service/host/wire.js';

/**
 * The one thing main needs from a child process: Electron's UtilityProcess in the app,
 * child_process.fork under Node (tests and benches), each wrapped to this shape.
 */
export interface ServiceChild {
  post(msg: ToService): void;
  onMessage(fn: (msg: FromService) => void): void;
  onExit(fn: (code: number | null) => void): void;
  kill(): void;
}

export interface ServiceConnection {
  firstRun: { email: string; generatedPassword?: string } | null;
  /** Answers an app-scheme request in the service process; bodies stream both ways. */
  fetch(req: Request): Promise<Response>;
  onJob(l: (job: TrackedJob) => void): () => void;
  setLoopback(s: { enabled: boolean; port: number }): Promise<string | null>;
  /** Closes the database (checkpointed) and waits for the process to end. */
  close(): Promise<void>;
  /** Set when the process ended on its own (it crashed or was killed). */
  exited: () => number | null | undefined;
}

/** Starts the service in `child` and resolves once its database is open. */
export function connectService(child: ServiceChild, init: ServiceInit): Promise<ServiceConnection> {
  let nextId = 1;
  let exitCode: number | null | undefined;
  const pending = new Map<number, { head: (r: Response) => void; fail: (e: Error) => void; body?: ReturnType<typeof chunkStream> }>();
  const replies = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
  const jobListeners = new Set<(job: TrackedJob) => void>();
  const exitWaiters: (() => void)[] = [];
  let ready!: (c: ServiceConnection) => void;
  let broken!: (e: Error) => void;
  const started = new Promise<ServiceConnection>((res, rej) => {
    ready = res;
    broken = rej;
  });

  const call = (name: 'setLoopback' | 'close', arg?: { enabled: boolean; port: number }) =>
    new Promise<unknown>((ok, fail) => {
      if (exitCode !== undefined) return fail(new Error('the service process has ended'));
      const id = nextId++;
      replies.set(id, { ok, fail });
      child.post(name === 'close' ? { t: 'call', id, name } : { t: 'call', id, name, arg: arg! });
    });

  const conn: Omit<ServiceConnection, 'firstRun'> = {
    fetch: (req) =>
      new Promise<Response>((head, fail) => {
        if (exitCode !== undefined) return fail(new Error('the service process has ended'));
        const id = nextId++;
        pending.set(id, { head, fail });
        child.post({ t: 'req', id, url: req.url, method: req.method, headers: [...req.headers], body: !!req.body });
        if (req.body) {
          void pump(
            req.body,
            (chunk) => child.post({ t: 'body', id, chunk }),
            () => !pending.has(id),
          ).then(
            () => child.post({ t: 'end', id }),
            () => child.post({ t: 'cancel', id }),
          );
        }
      }),
    onJob: (l) => {
      jobListeners.add(l);
      return () => jobListeners.delete(l);
    },
    setLoopback: async (s) => (await call('setLoopback', s)) as string | null,
    close: async () => {
      if (exitCode !== undefined) return;
      const gone = new Promise<void>((r) => exitWaiters.push(r));
      await Promise.race([call('close').catch(() => {}), gone]);
      await gone;
    },
    exited: () => exitCode,
  };

  child.onMessage((m) => {
    switch (m.t) {
      case 'ready':
        ready({ ...conn, firstRun: m.firstRun });
        return;
      case 'fatal':
        broken(new Error(`the service could not start: ${m.message}`));
        return;
      case 'job':
        for (const l of jobListeners) l(m.job);
        return;
      case 'reply': {
        const r = replies.get(m.id);
        replies.delete(m.id);
        if (m.error !== undefined) r?.fail(new Error(m.error));
        else r?.ok(m.value);
        return;
      }
      case 'res': {
        const p = pending.get(m.id);
        if (!p) return;
        p.body = chunkStream(() => {
          pending.delete(m.id);
          child.post({ t: 'cancel', id: m.id });
        });
        const nullBody = m.status === 204 || m.status === 304 || m.status === 101;
        p.head(new Response(nullBody ? null : p.body.stream, { status: m.status, headers: m.headers }));
        return;
      }
      case 'chunk':
        pending.get(m.id)?.body?.push(m.chunk);
        return;
      case 'done':
        pending.get(m.id)?.body?.end();
        pending.delete(m.id);
        return;
      case 'fail': {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (p?.body) p.body.fail(new Error(m.message));
        else p?.fail(new Error(m.message));
        return;
      }
    }
  });
  child.onExit((code) => {
    exitCode = code;
    const err = new Error(`the service process ended (exit code ${code})`);
    broken(err);
    for (const p of pending.values()) {
      if (p.body) p.body.fail(err);
      else p.fail(err);
    }
    for (const r of replies.values()) r.fail(err);
    pending.clear();
    replies.clear();
    for (const w of exitWaiters.splice(0)) w();
  });
  child.post({ t: 'init', init });
  return started;
}
