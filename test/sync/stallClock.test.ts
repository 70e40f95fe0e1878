import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { FileFetcher } from '../../electron/service/sync/filePull.js';
import { RemoteClient } from '../../electron/service/sync/remoteClient.js';
import { PULL_STAGE_BUFFER } from '../../electron/service/domain/files/ingest.js';
import { ADMIN, tempDir, type TestService } from '../support/service.js';
import { startLocal, startRemote, type RemoteProc } from './support.js';

// The pull's stall clock counts only waits on the server (a6bd23c): a download whose server sent
// everything at once must not be given up while this side's disk is slow. The disk is made slow
// for real: every libuv pool thread is held in a blocking open() of a FIFO, so the staging
// file's writes wait, past its 8 MB buffer, for several stall limits. Without the change the
// watchdog measured from the last chunk and broke the download off.

let remote: RemoteProc;
let local: TestService;
const bytes = randomBytes(PULL_STAGE_BUFFER + 4 * 1024 * 1024);

beforeAll(async () => {
  remote = await startRemote(6);
  await remote.client.uploadFile(
    { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(2), field_uuid: SYNTH.field('File'), template_field_uuid: '' },
    { blob: new Blob([bytes]), name: 'slow-disk.bin' },
  );
  local = await startLocal();
  const remoteId = await local.service.sync.addRemote(remote.url, ADMIN.email, ADMIN.password);
  expect((await local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset])).error).toBeUndefined();
}, 90_000);
afterAll(async () => {
  await local?.close();
  await remote?.stop();
});

/**
 * Holds every libuv pool thread (file system work) until `release`: each blocks in open() of a
 * FIFO with no writer; opening the FIFO read-write here (which never blocks) lets them go.
 */
async function holdThePool() {
  const dir = tempDir('odr-pool-');
  const size = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  const fifos = Array.from({ length: size }, (_, i) => path.join(dir, `fifo${i}`));
  for (const f of fifos) execFileSync('mkfifo', [f]);
  const opened = fifos.map((f) => open(f, 'r'));
  // Queued behind them: settles only once the pool is free again.
  const probe = stat(dir).then(() => performance.now());
  return {
    probe,
    release: async () => {
      const writers = fifos.map((f) => openSync(f, 'r+'));
      for (const h of await Promise.all(opened)) await h.close();
      for (const w of writers) closeSync(w);
    },
  };
}

it('a server that sent everything is not given up while the disk is slow (the clock runs only while reading)', async () => {
  const file = local.service.sync.files.missing(SYNTH.dataset).find((f) => f.original_name === 'slow-disk.bin')!;
  expect(file).toBeDefined();
  // A server that answers the login, then the whole file at once.
  const server = createServer((req, res) => {
    if (req.method === 'POST') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"token":"t"}');
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) }).end(bytes);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4`;
  const limitS = 0.3;
  const heldMs = 4 * limitS * 1000;
  process.env.ODR_FILE_STALL_SECONDS = String(limitS);
  const pool = await holdThePool();
  const t0 = performance.now();
  const releaseLater = new Promise<void>((r) => setTimeout(() => void pool.release().then(r), heldMs));
  try {
    const fetcher = new FileFetcher(local.service.domain, local.service.sync.blobs, () => new RemoteClient(url, 'u', 'p'));
    const row = await fetcher.ensure(file);
    expect(row.content_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.file_size).toBe(bytes.length);
  } finally {
    await releaseLater;
    delete process.env.ODR_FILE_STALL_SECONDS;
    server.close();
  }
  // The disk really was held for several stall limits (else this test proves nothing).
  expect((await pool.probe) - t0).toBeGreaterThanOrEqual(heldMs - 50);
  const res = await fetch(`${local.api}/file/${file.uuid}`, { headers: { Authorization: `Bearer ${local.admin.token}` } });
  expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
}, 60_000);
