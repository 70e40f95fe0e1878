import type { Db } from './db.js';

/**
 * Runs `fn` in one transaction; nested calls become savepoints. `immediate` takes the write lock
 * at the start, so concurrent writers queue instead of failing at commit.
 */
export function transaction<T>(db: Db, fn: () => T, mode: 'deferred' | 'immediate' = 'deferred'): T {
  const t = db.transaction(fn);
  return mode === 'immediate' ? t.immediate() : t();
}
