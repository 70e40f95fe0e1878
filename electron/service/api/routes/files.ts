import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import contentDisposition from 'content-disposition';
import { Hono } from 'hono';
import { getMimeType } from 'hono/utils/mime';
import type { AppEnv } from '../auth.js';
import { formFields } from '../body.js';
import { readMultipartUpload } from '../upload.js';
import { apiBase, recordJson } from './context.js';
import type { Domain } from '../../domain/domain.js';
import { notFound, OdrError } from '../../domain/errors.js';
import type { BlobStore } from '../../domain/files/blobStore.js';
import {
  deleteFile,
  insertUploads,
  readableFile,
  resolveUploadTarget,
  type StoredUpload,
  type UploadForm,
} from '../../domain/files/fileOps.js';
import { checkUpload } from '../../domain/files/images.js';
import { cleanFileName, placeBlob, placeBuffer } from '../../domain/files/ingest.js';
import type { FileRow } from '../../store/rows.js';

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` (one range; several are answered with the whole file). */
export function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null;
  const [, a, b] = m;
  if (a === '' && b === '') return null;
  let start: number;
  let end: number;
  if (a === '') {
    const n = Number(b);
    if (n === 0) return 'unsatisfiable';
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(a);
    end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

/** POST /file, GET /file/{uuid}, DELETE /file/{uuid} (contract; docs/odr-server.md §5.14–5.16). */
/**
 * `fetchMissing`: brings the bytes of a file that is listed here but stored only on a sync
 * remote (or answers why it cannot); without it such a file answers 404.
 */
export function fileRoutes(d: Domain, blobs: BlobStore, fetchMissing?: (file: FileRow) => Promise<FileRow>) {
  const app = new Hono<AppEnv>();

  app.post('/file', async (c) => {
    const upload = await readMultipartUpload(c, blobs, d.ctx.config.maxUploadBytes);
    const stored: StoredUpload[] = [];
    const committed: string[] = [];
    let target;
    try {
      const form = upload.fields as UploadForm;
      const user = d.users.actAs(c.get('user'), form.user_email);
      target = resolveUploadTarget(d, user, form);
      if (upload.files.length === 0) throw new OdrError(404, "This File to upload can't be found.");
      const wantsImage = target.field.type.name === 'Image';
      for (const part of upload.files) {
        const name = cleanFileName(part.filename);
        const { info: img, thumb: th } = await checkUpload(part.staged.tmp, name, part.staged.size, wantsImage);
        let image: StoredUpload['image'] = null;
        if (wantsImage && img && th) {
          const thumb = await placeBuffer(blobs, th.data);
          committed.push(thumb.hash);
          image = { width: img.width, height: img.height, thumb: { ...thumb, width: th.width, height: th.height, mime: th.mime } };
        }
        const declared = part.declaredType && part.declaredType !== 'application/octet-stream' ? part.declaredType : undefined;
        const mime = (wantsImage ? img?.mime : undefined) ?? getMimeType(name) ?? declared ?? 'application/octet-stream';
        stored.push({ name, hash: part.staged.hash, size: part.staged.size, mime, image });
      }
      // Bytes move to the store only once every part passed its checks; their new names reach
      // the disk in one flush (each directory synced once) before the rows that name them.
      for (const part of upload.files) {
        await placeBlob(blobs, part.staged);
        committed.push(part.staged.hash);
      }
      await blobs.dirs.flush();
      const t = target;
      await d.writes.run(() => insertUploads(d, user, t, stored));
    } catch (e) {
      await upload.discard();
      blobs.letGo(committed);
      throw e;
    }
    // Held since placeBlob/placeBuffer: a delete of equal bytes meanwhile left them alone.
    blobs.release(committed);
    d.announce([target.rec]);
    const top = d.store.topOf(target.rec);
    return c.redirect(`${apiBase(c)}/dataset/record/${top.uuid}`, 302);
  });

  app.get('/file/:uuid', async (c) => {
    const readable = readableFile(d, c.get('user'), c.req.param('uuid'));
    const meta = readable.meta;
    let file = readable.file;
    if (!file.content_hash && fetchMissing) file = await fetchMissing(file);
    if (!file.content_hash) {
      throw new OdrError(
        404,
        `The bytes of file ${file.uuid} are not stored here: it was imported as metadata only${file.source_href ? ` (source: ${file.source_href})` : ''}`,
      );
    }
    const p = blobs.pathOf(file.content_hash);
    const st = await stat(p).catch(() => null);
    if (!st) throw notFound('File');
    const size = st.size;
    const etag = `"${file.content_hash}"`;
    const headers: Record<string, string> = {
      'Content-Type': file.mime ?? 'application/octet-stream',
      'Accept-Ranges': 'bytes',
      ETag: etag,
      'Cache-Control': 'private, no-cache',
      'Content-Disposition': contentDisposition(meta.original_name, { type: file.is_image ? 'inline' : 'attachment' }),
      'X-Content-Type-Options': 'nosniff',
      // Opened directly, an uploaded HTML or SVG file must not run as part of this origin.
      'Content-Security-Policy': "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'",
    };
    const inm = c.req.header('if-none-match');
    if (inm && inm.split(',').some((t) => t.trim() === etag || t.trim() === '*')) return c.body(null, 304, headers);

    const rangeHeader = c.req.header('range');
    const range = rangeHeader ? parseRange(rangeHeader, size) : null;
    if (range === 'unsatisfiable') {
      return c.json({ error: { code: 416, message: `Range "${rangeHeader}" is outside the file's ${size} bytes` } }, 416, {
        'Content-Range': `bytes */${size}`,
      });
    }
    const { start, end } = range ?? { start: 0, end: size - 1 };
    const length = size === 0 ? 0 : end - start + 1;
    headers['Content-Length'] = String(length);
    if (range) headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    if (c.req.method === 'HEAD' || length === 0) return c.body(null, range ? 206 : 200, headers);
    const stream = Readable.toWeb(createReadStream(p, { start, end, highWaterMark: 256 * 1024 })) as unknown as ReadableStream;
    return c.body(stream, range ? 206 : 200, headers);
  });

  app.delete('/file/:uuid', async (c) => {
    const form = await formFields(c);
    const user = d.users.actAs(c.get('user'), form.user_email ?? c.req.query('user_email'));
    const outcome = await d.writes.run(() => deleteFile(d, user, c.req.param('uuid')));
    blobs.removeUnreferenced(outcome.orphanCandidates);
    d.announce([outcome.rec]);
    return recordJson(c, d, outcome.rec, user);
  });
  return app;
}
