import type { Domain } from '../domain.js';
import { newUuid } from '../ids.js';
import type { FileRow } from '../../store/rows.js';
import type { BlobStore } from './blobStore.js';
import { probeImage, thumbnail } from './images.js';
import { storeBuffer } from './ingest.js';
import type { JobReporter } from '../jobRunner.js';

/** Original images of a dataset (child datasets too) whose bytes are stored here. */
export function originalImages(d: Domain, datasetIds: number[]): FileRow[] {
  return d.ctx.db
    .prepare(
      `SELECT f.* FROM files f JOIN records r ON r.rid = f.record_rid
     WHERE r.datatype_id IN (SELECT value FROM json_each(?)) AND f.is_image = 1 AND f.parent_rid IS NULL AND f.content_hash IS NOT NULL
     ORDER BY f.rid`,
    )
    .all(JSON.stringify(datasetIds)) as FileRow[];
}

/**
 * Re-creates the default thumbnail of each image (bulk thumbnailing, run as a tracked job).
 * Decoding runs on libvips' threads; each image's rows swap in their own small transaction.
 */
export async function rebuildThumbnails(
  d: Domain,
  blobs: BlobStore,
  images: FileRow[],
  r: JobReporter,
): Promise<{ images: number; failed: number }> {
  const db = d.ctx.db;
  const oldDerivatives = db.prepare('SELECT content_hash FROM files WHERE parent_rid = ?').pluck();
  const dropDerivatives = db.prepare('DELETE FROM files WHERE parent_rid = ?');
  const nextId = db.prepare('SELECT COALESCE(MAX(internal_id), 0) + 1 FROM files').pluck();
  const ins = db.prepare(
    `INSERT INTO files (internal_id, uuid, record_rid, datafield_id, is_image, parent_rid, original_name, content_hash, file_size, mime,
       width, height, display_order, quality, created_by, create_date, create_auth, public_date)
     VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  let done = 0;
  let failed = 0;
  for (const img of images) {
    if (r.cancelled()) break;
    const src = blobs.pathOf(img.content_hash!);
    const info = await probeImage(src);
    if (!info) {
      failed++;
    } else {
      const th = await thumbnail(src, info).catch(() => null);
      if (!th) {
        failed++;
        done++;
        r.progress(done);
        continue;
      }
      const stored = await storeBuffer(blobs, th.data);
      const old = oldDerivatives.all(img.rid) as (string | null)[];
      await d.writes.run(() => {
        // Derivatives are not record edits (nothing to sync, no change-log entry), but renders
        // list them: drop the record tree's cached renders here.
        d.ctx.renders.dropTop(d.store.topOf(d.store.byRid(img.record_rid)!).uuid);
        dropDerivatives.run(img.rid);
        ins.run(
          nextId.get(),
          newUuid(),
          img.record_rid,
          img.datafield_id,
          img.rid,
          img.original_name,
          stored.hash,
          stored.size,
          th.mime,
          th.width,
          th.height,
          img.display_order,
          img.quality,
          img.created_by,
          img.create_date,
          img.create_auth,
          img.public_date,
        );
      });
      blobs.removeUnreferenced(old.filter((h): h is string => h !== null && h !== stored.hash));
    }
    done++;
    r.progress(done);
  }
  return { images: done, failed };
}
