import type { Db } from './db.js';
import { perConnection } from './prepared.js';

/** Free pages below this share of the file stay for the next writes to reuse. */
const SHARE = 0.01;
/** …and below this count whatever the share (a small database's few pages are not worth a pass). */
const MIN_PAGES = 16;

/**
 * Gives the file back the pages a large rewrite left free: the full-text index's merges after a
 * catch-up (~1 MB at 10k records, 4 % of the file) and value indexes a bulk import dropped from a
 * database that held data. Only databases created with auto_vacuum=INCREMENTAL (db.ts, every
 * database made since) can shrink; on older ones this does nothing and costs one header read.
 */
export const freePageStore = perConnection((db: Db) => {
  const s = {
    free: db.prepare<[], number>('PRAGMA freelist_count').pluck(),
    pages: db.prepare<[], number>('PRAGMA page_count').pluck(),
    mode: db.prepare<[], number>('PRAGMA auto_vacuum').pluck(),
  };
  // Fixed for the life of the file (only a full VACUUM could change it).
  const incremental = s.mode.get() === 2;
  return {
    /** Free pages now. */
    free: () => s.free.get() ?? 0,
    /** Returns the free pages to the file system when they are worth it; how many went. */
    reclaim: (): number => {
      // Inside a caller's transaction it would become part of it: the next burst reclaims instead.
      if (!incremental || db.inTransaction) return 0;
      const free = s.free.get() ?? 0;
      if (free < MIN_PAGES || free < (s.pages.get() ?? 0) * SHARE) return 0;
      // exec, not a prepared run(): every step of this pragma frees one page, and run() steps once.
      db.exec('PRAGMA incremental_vacuum');
      return free - (s.free.get() ?? 0);
    },
  };
});
