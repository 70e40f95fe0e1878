import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ELECTRON_SKIP, electronBinary } from './electronBinary.js';
import { startServe, type Served } from './serve.js';
import { SERVICES, servicesToSeed } from './services.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Seeds `dataDir` through the importer (e2e/support/seed.ts), in its own process. */
function seed(dataDir: string, bigExport?: string): Promise<void> {
  const args = ['--import', 'tsx', 'e2e/support/seed.ts', dataDir, '40', ...(bigExport ? [bigExport] : [])];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`seeding failed (${code}):\n${out}`)))),
  );
}

/**
 * The real services the specs share (SERVICES of them), each on a fresh data dir seeded alike
 * through the importer, then `serve` on a free loopback port serving the built renderer (npm test
 * builds it first). A spec reads its project's (`baseUrl()` in app.ts): the specs dealt to one
 * service run one after another in a fixed order, and no spec sees the edits of a spec running at
 * the same time on the other.
 */
export default async function globalSetup() {
  if (!electronBinary()) console.log(ELECTRON_SKIP);
  // Only the services the named spec files run on (all in CI): an unneeded one costs a seeding.
  const needed = servicesToSeed(path.join(ROOT, 'e2e'), process.argv);
  if (needed.length < SERVICES) console.log(`seeding service ${needed.join(', ')} only: the spec files named run on no other`);
  const dirs = new Map(needed.map((n) => [n, mkdtempSync(path.join(os.tmpdir(), 'odr-e2e-'))]));
  // A second, larger export for the import-job test (uploaded through the UI): written once.
  const bigExport = path.join(dirs.get(needed[0]!)!, 'import-4000.json');
  const servers: Served[] = [];
  const stop = async () => {
    for (const s of servers) await s.stop();
    for (const d of dirs.values()) rmSync(d, { recursive: true, force: true });
  };
  try {
    await Promise.all(needed.map((n, i) => seed(dirs.get(n)!, i === 0 ? bigExport : undefined)));
    for (const [n, d] of dirs) {
      const server = await startServe(d);
      servers.push(server);
      process.env[`ODR_E2E_URL_${n}`] = server.url;
    }
  } catch (e) {
    await stop();
    throw e;
  }
  process.env.ODR_E2E_IMPORT = bigExport;
  return stop;
}
