import { createReadStream, createWriteStream, existsSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import sharp from 'sharp';
import { OdrClient } from '../../shared/client/odrClient.js';
import { SYNTH } from '../synthetic.js';
import { BENCH_ADMIN, bareGet, drain, seedDataDir } from '../remote.js';
import { best, fmt, forkTs, mbPerSec, timed, type BenchContext } from '../util.js';

const MB = 2 ** 20;

async function makeFile(file: string, bytes: number) {
  if (existsSync(file)) return;
  const out = createWriteStream(file);
  for (let i = 0; i < bytes; i += MB) {
    const chunk = Buffer.alloc(MB, i % 251);
    chunk.writeUInt32LE(i, 0);
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(() => r()));
}

/**
 * Streams a multipart upload with node:http, as curl -F would. undici's FormData encoder reads
 * a file-backed Blob in small pieces and tops out near 150 MB/s here, which would measure the
 * client instead of the service.
 */
function streamUpload(
  url: string,
  token: string,
  fields: Record<string, string>,
  file: string,
  name: string,
): Promise<{ status: number; location: string | undefined }> {
  const boundary = `----odrbench${Date.now()}`;
  let head = '';
  for (const [k, v] of Object.entries(fields)) head += `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const length = Buffer.byteLength(head) + statSync(file).size + Buffer.byteLength(tail);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': length,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
      },
    );
    req.on('error', reject);
    req.write(head);
    const src = createReadStream(file, { highWaterMark: 1024 * 1024 });
    src.on('error', reject);
    src.on('end', () => req.end(tail));
    src.pipe(req, { end: false });
  });
}

/** Issue 3's figures: upload/download MB/s against same-machine limits, thumbnails per second. */
export async function filesBench(ctx: BenchContext): Promise<void> {
  const size = 256 * MB;
  const big = path.join(ctx.work, 'upload-256mb.bin');
  await makeFile(big, size);
  const { dir: dataDir } = await seedDataDir(ctx, 'data-files', 50);

  // Limit for uploads: copying the same bytes on the same disk, flushed as the service does.
  const copyTarget = path.join(ctx.work, 'copy.bin');
  const copy = await best(2, () =>
    mbPerSec(async () => {
      await pipeline(createReadStream(big, { highWaterMark: 256 * 1024 }), createWriteStream(copyTarget, { flush: true }));
      return size;
    }),
  );
  ctx.add({ section: 'files', name: 'limit: raw copy of 256 MB on disk (flushed)', value: +fmt(copy, 0), unit: 'MB/s' });

  const server = await forkTs('server.ts', [dataDir]);
  const client = new OdrClient({ baseUrl: `http://127.0.0.1:${server.port}/api/v4` });
  await client.login(BENCH_ADMIN.email, BENCH_ADMIN.password);
  let uploaded = '';
  const up = await best(2, async () => {
    const rate = await mbPerSec(async () => {
      const res = await streamUpload(
        `${client.baseUrl}/file`,
        client.token!,
        { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(1), field_uuid: SYNTH.field('File') },
        big,
        'big.bin',
      );
      if (res.status !== 302) throw new Error(`upload answered ${res.status}`);
      return size;
    });
    const r = await client.record(SYNTH.record(1));
    uploaded = r.fields.find((f) => f.field_uuid === SYNTH.field('File'))!.files!.at(-1)!.file_uuid;
    return rate;
  });
  ctx.add({
    section: 'files',
    name: 'upload 256 MB over HTTP (POST /file, streamed)',
    value: +fmt(up, 0),
    unit: 'MB/s',
    target: '≥ 50 % of raw copy',
    pass: up >= copy * 0.5,
    note: `${fmt((up / copy) * 100, 0)} % of the limit`,
  });

  const bare = await forkTs('bare-file.ts', [big]);
  const bareDown = await best(3, () => mbPerSec(() => bareGet(`http://127.0.0.1:${bare.port}/`)));
  await bare.stop();
  ctx.add({ section: 'files', name: 'limit: bare node:http streaming the same file', value: +fmt(bareDown, 0), unit: 'MB/s' });
  const down = await best(3, () =>
    mbPerSec(async () => {
      const n = await drain(await client.send('GET', `/file/${uploaded}`));
      if (n !== size) throw new Error(`download returned ${n} bytes`);
      return n;
    }),
  );
  ctx.add({
    section: 'files',
    name: 'download 256 MB over HTTP (GET /file)',
    value: +fmt(down, 0),
    unit: 'MB/s',
    target: '≥ 50 % of bare',
    pass: down >= bareDown * 0.5,
    note: `${fmt((down / bareDown) * 100, 0)} % of the limit`,
  });

  // Thumbnails: 24 photos of 3000×2000, then a bulk rebuild as a tracked job.
  const photo = await sharp({
    create: { width: 3000, height: 2000, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
  })
    .jpeg({ quality: 90 })
    .toBuffer();
  const n = 24;
  const uploads = await timed(async () => {
    for (let i = 0; i < n; i++) {
      await client.uploadFile(
        { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(2 + i), field_uuid: SYNTH.field('Image') },
        { blob: new Blob([photo, Buffer.from([i])]), name: `photo-${i}.jpg` },
      );
    }
  });
  const perUpload = (uploads.secs * 1000) / n;
  ctx.add({ section: 'files', name: 'image upload incl. probe + thumbnail (3000×2000 JPEG)', value: +fmt(perUpload, 0), unit: 'ms each' });
  const base = `http://127.0.0.1:${server.port}`;
  const rebuild = await timed(async () => {
    const started = await fetch(`${base}/local/thumbnails/${SYNTH.dataset}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${client.token}` },
    });
    const job = (await started.json()) as { id: number };
    for (;;) {
      const { jobs } = (await (await fetch(`${base}/local/jobs`, { headers: { Authorization: `Bearer ${client.token}` } })).json()) as {
        jobs: { id: number; state: string; current: number }[];
      };
      const j = jobs.find((x) => x.id === job.id)!;
      if (j.state !== 'running') break;
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  const thumbsPerSec = n / rebuild.secs;
  ctx.add({ section: 'files', name: 'thumbnail rebuild job (3000×2000 → 500×375)', value: +fmt(thumbsPerSec, 1), unit: 'images/s' });
  await server.stop();
}
