import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ELECTRON_SKIP, electronBinary } from './electronBinary.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * One real service for the browser tests: a fresh data dir seeded through the importer, then
 * `serve` on a free loopback port serving the built renderer (npm test builds it first).
 */
export default async function globalSetup() {
  if (!electronBinary()) console.log(ELECTRON_SKIP);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'odr-e2e-'));
  const bigExport = path.join(dataDir, 'import-4000.json');
  const seed = spawnSync(process.execPath, ['--import', 'tsx', 'e2e/support/seed.ts', dataDir, '40', bigExport], { cwd: ROOT, encoding: 'utf8' });
  if (seed.status !== 0) throw new Error(`seeding failed:\n${seed.stdout}\n${seed.stderr}`);

  const server = spawn(process.execPath, ['--import', 'tsx', 'electron/service/cli.ts', 'serve', '--port', '0', '--data', dataDir], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ODR_ADMIN_PASSWORD: undefined },
  });
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
    server.stdout!.on('data', on);
    server.stderr!.on('data', on);
    server.once('exit', (code) => reject(new Error(`serve exited (${code}):\n${out}`)));
  });
  process.env.ODR_E2E_URL = url;
  process.env.ODR_E2E_DATA = dataDir;
  process.env.ODR_E2E_IMPORT = bigExport;
  return async () => {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  };
}
