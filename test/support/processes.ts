import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'electron/service/cli.ts');

export interface Proc {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the first match of `re` in stdout+stderr. */
  waitFor: (re: RegExp, ms?: number) => Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs the service CLI in its own Node process (through tsx, as npm run does). */
export function runCli(args: string[], env: Record<string, string | undefined> = {}): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ODR_ADMIN_PASSWORD: undefined, ODR_ADMIN_EMAIL: undefined, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters: (() => void)[] = [];
  const onData = (b: Buffer) => {
    out += b.toString();
    for (const w of waiters.splice(0)) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      for (const w of waiters.splice(0)) w();
      resolve({ code, signal });
    }),
  );
  const waitFor = (re: RegExp, ms = 30_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re} in:\n${out}`)), ms);
      const check = () => {
        const m = out.match(re);
        if (m) {
          clearTimeout(timer);
          resolve(m);
        } else if (child.exitCode !== null) {
          clearTimeout(timer);
          reject(new Error(`process exited (${child.exitCode}) before ${re}:\n${out}`));
        } else {
          waiters.push(check);
        }
      };
      check();
    });
  return { child, output: () => out, waitFor, exited };
}
