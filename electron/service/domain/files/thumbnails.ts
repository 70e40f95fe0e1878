import type { Domain } from '../domain.js';
import { newUuid } from '../ids.js';
import type { FileRow } from '../../store/rows.js';
import type { BlobStore } from './blobStore.js';
import { probeImage, thumbnail } from './images.js';
import { storeBuffer } from './ingest.js';
import type { JobReporter } from '../jobRunner.js';
import { fileStore } from '../../store/files.js';

/** Original images of a dataset (child datasets too) whose bytes are stored here. */
export function originalImages(d: Domain, datasetIds: number[]): FileRow[] {
  return fileStore(d.ctx.db).originalImages(datasetIds);
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
  const files = fileStore(d.ctx.db);
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
      const old = files.derivativeHashes(img.rid);
      try {
        await d.writes.run(() => {
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
        });
      } finally {
        // Held since storeBuffer; a failed commit leaves bytes nothing references.
        blobs.letGo([stored.hash]);
      }
      blobs.removeUnreferenced(old.filter((h): h is string => h !== null && h !== stored.hash));
    }
    done++;
    r.progress(done);
  }
  return { images: done, failed };
}
