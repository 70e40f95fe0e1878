import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from '@playwright/test';
import { ROOT } from './app.js';
import { startServe, type Served } from './serve.js';

/** The synthetic dataset's record names (bench/synthetic.ts): `S-000042`. */
export const syntheticName = (i: number) => `S-${String(i).padStart(6, '0')}`;

/**
 * A spec's own service on a fresh data dir seeded with `records` synthetic records (the shared
 * one holds 40): started before the spec's tests, stopped and deleted after. Returns a getter,
 * as the service exists only once beforeAll has run. `env`: its test-only settings (cli.ts envConfig).
 */
export function syntheticServe(tag: string, records: number, env: Record<string, string> = {}): () => Served {
  let served: Served | undefined;
  let dir: string | undefined;
  test.beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), `odr-e2e-${tag}-`));
    const seed = spawnSync(process.execPath, ['--import', 'tsx', 'e2e/support/seed.ts', dir, String(records)], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (seed.status !== 0) throw new Error(`seeding failed:\n${seed.stdout}\n${seed.stderr}`);
    served = await startServe(dir, [], env);
  });
  test.afterAll(async () => {
    await served?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => served!;
}
