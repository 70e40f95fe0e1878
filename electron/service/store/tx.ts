import type { Db } from './db.js';

/**
 * Runs `fn` in one transaction; nested calls become savepoints. `immediate` takes the write lock
 * at the start, so concurrent writers queue instead of failing at commit.
 */
export function transaction<T>(db: Db, fn: () => T, mode: 'deferred' | 'immediate' = 'deferred'): T {
  const t = runner(db).run;
  return (mode === 'immediate' ? t.immediate(fn) : t(fn)) as T;
}

/**
 * How many of `transaction`'s levels are open on `db` now (0 outside, 1 in a transaction, 2 in
 * its first savepoint...). Work that must share the fate of one level (a group-commit op's staged
 * answer) checks it is still at that level: a savepoint inside it can roll back alone.
 */
export const transactionDepth = (db: Db): number => runners.get(db)?.depth ?? 0;

// One transaction function per connection that runs what it is given: db.transaction(fn) builds
// four wrapped functions and defines their properties on every call, and every group-committed
// write made three such calls (1.3 % of the main thread under 8 writers).
interface Runner {
  depth: number;
  run: ReturnType<typeof wrap>;
}
const wrap = (db: Db, r: { depth: number }) =>
  db.transaction((fn: () => unknown) => {
    r.depth++;
    try {
      return fn();
    } finally {
      r.depth--;
    }
  });
const runners = new WeakMap<Db, Runner>();
function runner(db: Db): Runner {
  let r = runners.get(db);
  if (!r) {
    const made = { depth: 0 } as Runner;
    made.run = wrap(db, made);
    runners.set(db, (r = made));
  }
  return r;
}

/**
 * An immediate transaction whose loss to a power cut is harmless because it only records what can
 * be fetched or sent again (a sync pull's page of server copies; a push marking idempotent writes
 * done with the server's copy after them; a search-index step, rebuilt from the change log): committed without its own WAL fsync
 * (synchronous=NORMAL for this commit only). Kill -9 loses nothing; a power cut may lose it, with
 * everything after it, never a part of it. The next FULL commit on this connection (any other
 * writer's, and a pull's cursor at its end) syncs the WAL with it in, so no acknowledged write
 * waits on it or loses its durability. Measured: a sixth of a first pull's time and a fifth of a
 * pushed operation's were these fsyncs (docs/sync.md).
 */
export function refetchableTransaction<T>(db: Db, fn: () => T): T {
  if (db.inTransaction) return transaction(db, fn, 'immediate');
  db.pragma('synchronous = NORMAL');
  try {
    return transaction(db, fn, 'immediate');
  } finally {
    db.pragma('synchronous = FULL');
  }
}
