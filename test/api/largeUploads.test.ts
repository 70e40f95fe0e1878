import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// Uploads past ingest.ts's EARLY_FLUSH_BYTES (16 MB) flush in the background while they
// arrive: a completed one keeps every byte, and one that breaks off after a background flush
// leaves no tmp file and no row.

const FILE = SYNTH.field('File');
const MB = 1024 * 1024;
let t: TestService;
const tmpDir = () => path.join(t.dataDir, 'files', 'tmp');
const rowNamed = (name: string) =>
  t.service.ctx.db.prepare('SELECT uuid FROM files WHERE original_name = ?').get(name) as { uuid: string } | undefined;

/** Polls (bounded) until `ok` holds; fails naming `what` otherwise. */
async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const end = performance.now() + ms;
  while (!ok()) {
    if (performance.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  t = await startSyntheticService(2, { config: { maxUploadBytes: 100 * MB } });
});
afterAll(() => t.close());

describe('uploads past the background-flush size', () => {
  it('stores a 40 MB upload whole: size, sha256 and bytes read back', async () => {
    const bytes = Buffer.alloc(40 * MB);
    for (let i = 0; i < bytes.length; i += 4096) bytes.writeUInt32LE(i, i);
    const sha = createHash('sha256').update(bytes).digest('hex');
    await t.admin.uploadFile(
      { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(0), field_uuid: FILE },
      { blob: new Blob([bytes]), name: 'forty.bin' },
    );
    const row = t.service.ctx.db.prepare('SELECT uuid, file_size, content_hash FROM files WHERE original_name = ?').get('forty.bin') as {
      uuid: string;
      file_size: number;
      content_hash: string;
    };
    expect(row.file_size).toBe(bytes.length);
    expect(row.content_hash).toBe(sha);
    const res = await t.admin.send('GET', `/file/${row.uuid}`);
    expect(res.status).toBe(200);
    const got = Buffer.from(await res.arrayBuffer());
    expect(got.length).toBe(bytes.length);
    expect(createHash('sha256').update(got).digest('hex')).toBe(sha);
    expect(readdirSync(tmpDir())).toEqual([]);
  });

  it('leaves no tmp file and no row when the upload breaks off after 20 MB', async () => {
    const head =
      `--XyZ\r\nContent-Disposition: form-data; name="dataset_uuid"\r\n\r\n${SYNTH.dataset}\r\n` +
      `--XyZ\r\nContent-Disposition: form-data; name="record_uuid"\r\n\r\n${SYNTH.record(1)}\r\n` +
      `--XyZ\r\nContent-Disposition: form-data; name="field_uuid"\r\n\r\n${FILE}\r\n` +
      `--XyZ\r\nContent-Disposition: form-data; name="file"; filename="broken.bin"\r\n\r\n`;
    const s = net.connect(t.host.port, '127.0.0.1');
    s.on('error', () => undefined);
    await new Promise<void>((r) => s.once('connect', () => r()));
    s.write(
      `POST /api/v4/file HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.admin.token}\r\n` +
        `Content-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: ${60 * MB}\r\n\r\n${head}`,
    );
    const chunk = Buffer.alloc(MB, 7);
    for (let sent = 0; sent < 20 * MB; sent += MB) {
      if (!s.write(chunk)) await new Promise<void>((r) => s.once('drain', () => r()));
    }
    // The service has staged past the first background flush before the client goes away.
    const staged = () => readdirSync(tmpDir()).map((f) => statSync(path.join(tmpDir(), f), { throwIfNoEntry: false })?.size ?? 0);
    await until('the upload has staged more than 16 MB', () => staged().some((n) => n > 16 * MB));
    s.resetAndDestroy();
    await until('the tmp area is empty again', () => readdirSync(tmpDir()).length === 0);
    expect(rowNamed('broken.bin')).toBeUndefined();
    const alive = await t.admin.send('GET', `/dataset/record/${SYNTH.record(1)}`);
    expect(alive.status).toBe(200);
  });
});
