import type { Domain } from '../domain.js';
import { bulkIndexStore } from '../../store/bulkIndexes.js';
import { reclaimFreePages } from '../reclaimFreePages.js';

/**
 * Imports at least this large, and at least a quarter of the records already stored, build the
 * value indexes once at their end (store/bulkIndexes.ts); below that, rebuilding them over
 * what is stored would cost more than keeping them up to date.
 */
const BULK_RECORDS = 20_000;

/**
 * Runs an import of about `expected` new records (record files, samples, CSV rows, a first sync
 * pull): a bulk one drops the deferrable value indexes first and builds them at its end, also
 * after a failure or a cancel (what was imported is kept, and searches need the indexes).
 * `minRecords`: a caller that measured its own break-even (the sync pull, whose records cost
 * more to store than a file's) may set it lower.
 */
export async function withBulkIndexes<T>(d: Domain, expected: number, run: () => Promise<T>, minRecords = BULK_RECORDS): Promise<T> {
  const indexes = bulkIndexStore(d.ctx.db);
  const bulk = expected >= minRecords && expected >= indexes.recordsStored() / 4;
  if (bulk) indexes.defer();
  try {
    return await run();
  } finally {
    if (bulk) {
      rebuildOrLeave(indexes);
      // Indexes dropped from a database that held data left their pages free; the rebuild took
      // back only some (it writes full pages). Bounded steps with requests served between them:
      // at 400k+ records that is tens of thousands of pages. Not when the rebuild failed: the next
      // start's rebuild needs those pages again.
      try {
        if (indexes.deferred().length === 0) await reclaimFreePages(d.ctx.db);
      } catch (e) {
        console.error('[odr] free pages not reclaimed after a bulk import:', e);
      }
    }
  }
}

/**
 * A failed rebuild (a full disk, say) must not replace the import's own outcome: rows that
 * committed would be reported lost and a retry would duplicate them. The indexes stay listed in
 * `meta`, so the next open builds them; searches scan meanwhile.
 */
function rebuildOrLeave(indexes: ReturnType<typeof bulkIndexStore>): void {
  try {
    indexes.rebuild();
  } catch (e) {
    console.error(`[odr] value indexes not rebuilt after a bulk import (${indexes.deferred().join(', ')}); the next start retries:`, e);
  }
}
