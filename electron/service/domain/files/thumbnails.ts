import type { Domain } from '../domain.js';
import { newUuid } from '../ids.js';
import type { FileRow } from '../../store/rows.js';
import type { BlobStore } from './blobStore.js';
import { probeImage, thumbnail } from './images.js';
import { placeBuffer } from './ingest.js';
import type { JobReporter } from '../jobRunner.js';
import { fileStore } from '../../store/files.js';
import { RightLost } from '../errors.js';
import { whileAdmin } from '../import/writeRights.js';
import type { DatatypeInfo } from '../schemaCache.js';
import type { User } from '../users.js';

/** Original images of a dataset (child datasets too) whose bytes are stored here. */
export function originalImages(d: Domain, datasetIds: number[]): FileRow[] {
  return fileStore(d.ctx.db).originalImages(datasetIds);
}

/**
 * The bulk-thumbnails job of dataset `dt` for its admin `user`: minutes of writes, each image
 * with the rights as they are then; RightLost (the job's error) once the user no longer
 * administers the dataset or it was deleted, saying how many images were done.
 */
export async function rebuildDatasetThumbnails(
  d: Domain,
  blobs: BlobStore,
  user: User,
  dt: DatatypeInfo,
  images: FileRow[],
  r: JobReporter,
): Promise<{ images: number; failed: number }> {
  const guarded = whileAdmin(d, user, dt, r);
  const made = await rebuildThumbnails(d, blobs, images, guarded);
  const lost = guarded.lost();
  if (lost) throw new RightLost(`Stopped: ${lost}; ${made.images} of ${images.length} images were done, the rest were not`);
  return made;
}

/** Images whose thumbnails are stored, synced and committed together. */
const THUMB_PAGE = 16;

/**
 * Re-creates the default thumbnail of each image (bulk thumbnailing, run as a tracked job).
 * Decoding runs on libvips' threads. A page of images is stored, then each new directory synced
 * once (blobs.dirs.flush), then their rows swap in one commit: a page pays one directory sync
 * each and one WAL fsync, not one per image.
 */
export async function rebuildThumbnails(
  d: Domain,
  blobs: BlobStore,
  images: FileRow[],
  r: JobReporter,
): Promise<{ images: number; failed: number }> {
  const files = fileStore(d.ctx.db);
  let done = 0;
  let failed = 0;
  for (let at = 0; at < images.length && !r.cancelled(); at += THUMB_PAGE) {
    const made: { img: FileRow; stored: { hash: string; size: number }; th: NonNullable<Awaited<ReturnType<typeof thumbnail>>> }[] = [];
    try {
      for (const img of images.slice(at, at + THUMB_PAGE)) {
        if (r.cancelled()) break;
        const src = blobs.pathOf(img.content_hash!);
        const info = await probeImage(src);
        const th = info ? await thumbnail(src, info).catch(() => null) : null;
        if (th) made.push({ img, stored: await placeBuffer(blobs, th.data), th });
        else failed++;
        done++;
      }
      await blobs.dirs.flush();
      const old = made.flatMap((m) => files.derivativeHashes(m.img.rid));
      await d.writes.run(() => {
        for (const { img, stored, th } of made) {
          // Derivatives are not record edits (nothing to sync, no change-log entry), but renders
          // list them: drop the record tree's cached renders here.
          d.ctx.renders.dropTop(d.store.topOf(d.store.byRid(img.record_rid)!).uuid);
          files.dropDerivatives(img.rid);
          files.insert({
            uuid: newUuid(),
            recordRid: img.record_rid,
            fieldId: img.datafield_id,
            isImage: true,
            parentRid: img.rid,
            originalName: img.original_name,
            contentHash: stored.hash,
            fileSize: stored.size,
            mime: th.mime,
            width: th.width,
            height: th.height,
            displayOrder: img.display_order,
            quality: img.quality,
            createdBy: img.created_by,
            createDate: img.create_date,
            createAuth: img.create_auth,
            publicDate: img.public_date,
          });
        }
      });
      const kept = new Set(made.map((m) => m.stored.hash));
      blobs.removeUnreferenced(old.filter((h): h is string => h !== null && !kept.has(h)));
    } finally {
      // Held since placeBuffer; a failed commit leaves bytes nothing references.
      blobs.letGo(made.map((m) => m.stored.hash));
    }
    r.progress(done);
  }
  return { images: done, failed };
}
