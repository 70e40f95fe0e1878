import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Served {
  /** Origin, e.g. http://127.0.0.1:PORT (the API is under /api/v4). */
  url: string;
  proc: ChildProcess;
  stop: () => Promise<void>;
}

/** `serve` in its own process on a free loopback port, as `npm run serve` runs it. */
export async function startServe(dataDir: string, extra: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', 'electron/service/cli.ts', 'serve', '--port', '0', '--data', dataDir, ...extra],
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
  return {
    url,
    proc,
    stop: async () => {
      if (proc.exitCode !== null) return;
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    },
  };
}
