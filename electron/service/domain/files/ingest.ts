import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, fdatasync } from 'node:fs';
import { rm, stat, writeFile } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import type { BlobStore } from './blobStore.js';

const exists = (file: string): Promise<boolean> =>
  stat(file).then(
    () => true,
    () => false,
  );

/** Bytes that streamed into the store's tmp area, hashed on the way. */
export interface Staged {
  tmp: string;
  hash: string;
  size: number;
}

export class TooLarge extends Error {}

/** Bytes written between background flushes of a file being staged. */
const EARLY_FLUSH_BYTES = 16 * 1024 * 1024;

/**
 * Bytes of a staged upload that may wait for the disk while reading goes on. Nothing bounds how
 * many uploads (and multipart parts) stage at once, so each keeps to 1 MB: 50 at 8 MB would be
 * ~400 MB of buffers on a disk slower than the network.
 */
export const UPLOAD_STAGE_BUFFER = 1024 * 1024;
/**
 * The sync file pull's buffer: its concurrency is bounded (sync/filePull.ts). The disk's writes
 * run on the thread pool, and with 1 MB a pulled 4 MB file waited for them 4-12 ms of its ~35 ms
 * at load 9-12 (the pull went from 46 to 55 % of a bare download, mean of 5 alternating runs each).
 */
export const PULL_STAGE_BUFFER = 8 * 1024 * 1024;

/**
 * Streams `source` to a tmp file, hashing and counting each chunk as it is written (one pass,
 * no stream hops between); never holds the file in memory: at most `bufferBytes` (plus one
 * chunk) wait for the disk. The flush as the file closes is the one that makes it durable: its
 * bytes are on disk before a database row can point at them. Background flushes every
 * EARLY_FLUSH_BYTES only leave that closing flush less to do.
 */
export async function stage(
  blobs: BlobStore,
  source: AsyncIterable<Uint8Array>,
  maxBytes: number,
  bufferBytes = UPLOAD_STAGE_BUFFER,
): Promise<Staged> {
  const tmp = blobs.tmpPath(`${Date.now()}-${randomBytes(8).toString('hex')}`);
  const hash = createHash('sha256');
  let size = 0;
  const out = createWriteStream(tmp, { flush: true, highWaterMark: bufferBytes });
  let writeError: Error | undefined;
  out.on('error', (e) => (writeError = e));
  // The kernel starts writing dirty pages back only past a tenth of RAM: left alone, a large
  // file's whole flush waits for its last byte. One background flush at a time while the bytes
  // arrive leaves the closing flush only the tail (it waited ~120 ms for 256 MB here).
  let unflushed = 0;
  let flushing: Promise<void> | null = null;
  const flushSoFar = () => {
    // Set once the file is open (WriteStream's typings leave it out).
    const fd = (out as unknown as { fd: number | null }).fd;
    if (flushing || typeof fd !== 'number') return;
    unflushed = 0;
    flushing = new Promise<void>((r) => fdatasync(fd, () => r())).then(() => void (flushing = null));
  };
  try {
    for await (const chunk of source) {
      if (writeError) throw writeError;
      size += chunk.length;
      if (size > maxBytes) throw new TooLarge(`File larger than ${maxBytes} bytes`);
      hash.update(chunk);
      // once() rejects on the stream's 'error' event.
      if (!out.write(chunk)) await once(out, 'drain');
      if ((unflushed += chunk.length) >= EARLY_FLUSH_BYTES) flushSoFar();
    }
    await flushing;
    out.end();
    // Settles on 'close', after the closing flush.
    await finished(out);
  } catch (e) {
    await flushing;
    out.destroy();
    // A stream failed while the file was still being opened creates it after an early rm.
    if (!out.closed) await once(out, 'close').catch(() => undefined);
    await rm(tmp, { force: true });
    throw e;
  }
  return { tmp, hash: hash.digest('hex'), size };
}

/**
 * Moves staged bytes to their content address (a copy already there wins; equal bytes). The
 * hash is held (BlobStore.hold) from before the copy is looked at: the caller releases it once
 * the row that references it has committed or failed. A failed move releases it here.
 *
 * The new names are NOT durable yet: the caller awaits `blobs.dirs.flush()` before the commit
 * of a row that names them, so a batch of files pays each directory sync once.
 */
export async function placeBlob(blobs: BlobStore, s: Staged): Promise<string> {
  const dest = blobs.pathOf(s.hash);
  blobs.hold(s.hash);
  try {
    if (await exists(dest)) {
      // Another writer's rename may have finished before it noted the directory: noting it here
      // keeps this writer's row from committing before that name is synced.
      blobs.dirs.note(blobs.dirOf(s.hash));
      await rm(s.tmp, { force: true });
    } else {
      blobs.dirs.mkdir(blobs.dirOf(s.hash));
      await blobs.dirs.rename(s.tmp, dest);
    }
  } catch (e) {
    blobs.release([s.hash]);
    throw e;
  }
  return dest;
}

/**
 * Stores an in-memory derivative (a thumbnail) under its content address, held like
 * placeBlob's and, like it, durable only after `blobs.dirs.flush()`.
 */
export async function placeBuffer(blobs: BlobStore, buf: Buffer): Promise<{ hash: string; size: number }> {
  const hash = createHash('sha256').update(buf).digest('hex');
  const dest = blobs.pathOf(hash);
  blobs.hold(hash);
  try {
    if (await exists(dest))
      blobs.dirs.note(blobs.dirOf(hash)); // as in placeBlob
    else {
      const tmp = blobs.tmpPath(`${hash}-${randomBytes(4).toString('hex')}`);
      await writeFile(tmp, buf, { flush: true });
      blobs.dirs.mkdir(blobs.dirOf(hash));
      await blobs.dirs.rename(tmp, dest);
    }
  } catch (e) {
    blobs.release([hash]);
    throw e;
  }
  return { hash, size: buf.length };
}

/**
 * A user-supplied name as a display name only: the last path component, no control
 * characters, at most 255 bytes. It never becomes a path (bytes live under their hash).
 */
export function cleanFileName(raw: string | undefined): string {
  let name = (raw ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  name = name.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (name === '' || name === '.' || name === '..') name = 'upload';
  while (Buffer.byteLength(name) > 255) name = name.slice(0, -1);
  return name;
}
