import type { Db } from '../store/db.js';
import { freePageStore, RECLAIM_STEP } from '../store/freePages.js';

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Gives free pages back in bounded steps (store/freePages.ts), a step per event-loop turn so
 * requests interleave, while `go()` allows. Starts only when they are worth it; once started it
 * empties the free list. Resolves with whether it finished (false: `go()` stopped it first).
 */
export async function reclaimFreePages(db: Db, go: () => boolean = () => true): Promise<boolean> {
  const store = freePageStore(db);
  if (!go()) return false;
  if (!store.worth()) return true;
  for (;;) {
    if (store.step(RECLAIM_STEP) < RECLAIM_STEP) return true;
    await nextTick();
    if (!go()) return false;
  }
}
