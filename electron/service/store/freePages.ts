import type { Db } from './db.js';
import { perConnection } from './prepared.js';

/** Free pages below this share of the file stay for the next writes to reuse. */
const SHARE = 0.01;
/** …and below this count whatever the share (a small database's few pages are not worth a pass). */
const MIN_PAGES = 16;
/**
 * Pages one step moves at most: each step is one write with a full fsync on the caller's thread,
 * so a large free list (value indexes dropped at 400k+ records: tens of thousands of pages) is
 * given back over several steps with requests served between them.
 */
export const RECLAIM_STEP = 2000;

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
    /** Whether the free pages are worth giving back now (and can be). */
    worth: (): boolean => {
      // Inside a caller's transaction a step would become part of it: a later one reclaims.
      if (!incremental || db.inTransaction) return false;
      const free = s.free.get() ?? 0;
      return free >= MIN_PAGES && free >= (s.pages.get() ?? 0) * SHARE;
    },
    /** Gives back at most `max` free pages, whatever their share; how many went. */
    step: (max = RECLAIM_STEP): number => {
      if (!incremental || db.inTransaction) return 0;
      const free = s.free.get() ?? 0;
      if (free === 0) return 0;
      // exec, not a prepared run(): every step of this pragma frees one page, and run() steps once.
      db.exec(`PRAGMA incremental_vacuum(${Math.max(1, Math.floor(max))})`);
      return free - (s.free.get() ?? 0);
    },
  };
});
