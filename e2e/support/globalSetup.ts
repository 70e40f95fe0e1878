import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ELECTRON_SKIP, electronBinary } from './electronBinary.js';
import { startServe } from './serve.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * One real service for the browser tests: a fresh data dir seeded through the importer, then
 * `serve` on a free loopback port serving the built renderer (npm test builds it first).
 */
export default async function globalSetup() {
  if (!electronBinary()) console.log(ELECTRON_SKIP);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'odr-e2e-'));
  const bigExport = path.join(dataDir, 'import-4000.json');
  const seed = spawnSync(process.execPath, ['--import', 'tsx', 'e2e/support/seed.ts', dataDir, '40', bigExport], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (seed.status !== 0) throw new Error(`seeding failed:\n${seed.stdout}\n${seed.stderr}`);

  const server = await startServe(dataDir);
  const url = server.url;
  process.env.ODR_E2E_URL = url;
  process.env.ODR_E2E_DATA = dataDir;
  process.env.ODR_E2E_IMPORT = bigExport;
  return async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
