import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Served {
  /** Origin, e.g. http://127.0.0.1:PORT (the API is under /api/v4). */
  url: string;
  proc: ChildProcess;
  stop: () => Promise<void>;
  /**
   * Stops the process (its open streams end from the service's side, as at a real restart) and
   * serves the same data dir on the same port again: a window keeps its address.
   */
  restart: () => Promise<void>;
}

/** `serve` in its own process on a free loopback port, as `npm run serve` runs it. */
export async function startServe(dataDir: string, extra: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  const first = await spawnServe(dataDir, extra, env, 0);
  const served: Served = {
    ...first,
    stop: () => stopProc(served.proc),
    restart: async () => {
      await stopProc(served.proc);
      const again = await spawnServe(dataDir, extra, env, Number(new URL(served.url).port));
      served.proc = again.proc;
    },
  };
  return served;
}

async function stopProc(proc: ChildProcess) {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
}

async function spawnServe(dataDir: string, extra: string[], env: Record<string, string>, port: number) {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', 'electron/service/cli.ts', 'serve', '--port', String(port), '--data', dataDir, ...extra],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ODR_ADMIN_PASSWORD: undefined, ...env },
    },
  );
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${out}`)), 30_000);
    const on = (b: Buffer) => {
      out += b.toString();
      const m = /listening on (http:\/\/\S+)\/api\/v4/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    proc.stdout!.on('data', on);
    proc.stderr!.on('data', on);
    proc.once('exit', (code) => reject(new Error(`serve exited (${code}):\n${out}`)));
  });
  return { url, proc };
}

/** The admin of the e2e seed, and of a served local app started with ODR_ADMIN_EMAIL/PASSWORD set to it. */
export const SERVED_ADMIN = { email: 'admin@e2e.local', password: 'e2e-password' };

/** A fresh admin token from a served process. */
export async function servedToken(origin: string): Promise<string> {
  const res = await fetch(`${origin}/api/v4/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: SERVED_ADMIN.email, password: SERVED_ADMIN.password }),
  });
  return ((await res.json()) as { token: string }).token;
}

/** One request to a served process as its admin, answered as it came. */
export async function servedCall(origin: string, method: string, p: string, body?: unknown): Promise<Response> {
  return fetch(`${origin}${p}`, {
    method,
    headers: { Authorization: `Bearer ${await servedToken(origin)}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The same, failing on an error status, with the JSON answer. */
export async function servedJson<T>(origin: string, method: string, p: string, body?: unknown): Promise<T> {
  const res = await servedCall(origin, method, p, body);
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}
