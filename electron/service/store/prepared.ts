import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

/**
 * Builds a repository once per connection (a service holds one; tests host several): its
 * statements are prepared (parsed and planned) when it is first asked for, never per call.
 */
export function perConnection<T>(build: (db: Db) => T): (db: Db) => T {
  const byDb = new WeakMap<Db, T>();
  return (db) => {
    let r = byDb.get(db);
    if (!r) {
      r = build(db);
      byDb.set(db, r);
    }
    return r;
  };
}

/** Statements kept per connection by `shaped`; the least recently used go first. */
const SHAPES_KEPT = 256;

/**
 * For SQL whose text is built at run time (a filter's shape, an IN list's length): each distinct
 * text is prepared once per connection and kept while in use. Texts come from shapes, never from
 * values, which are always bound.
 */
export const shaped = perConnection((db: Db) => {
  const cache = new Map<string, Statement<unknown[], unknown>>();
  return <P extends unknown[] = unknown[], R = unknown>(sql: string): Statement<P, R> => {
    let s = cache.get(sql);
    if (s) {
      cache.delete(sql);
    } else {
      s = db.prepare(sql);
      if (cache.size >= SHAPES_KEPT) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, s);
    return s as unknown as Statement<P, R>;
  };
});

/** Rows per multi-row INSERT: few statements per batch, far below SQLite's 32,766 parameters. */
const ROWS = 128;

/**
 * `head` with a VALUES list of up to ROWS tuples of `width` columns, run over flat parameters in
 * order (a later row of the same key meets the earlier one as separate inserts would). One
 * statement per row count, prepared the first time that count is met.
 */
export function multiRow(db: Db, head: string, width: number): (flat: unknown[]) => void {
  const byCount: Statement<unknown[]>[] = [];
  const tuple = `(${Array.from({ length: width }, () => '?').join(', ')})`;
  return (flat) => {
    for (let i = 0; i < flat.length; i += ROWS * width) {
      const part = flat.length <= ROWS * width ? flat : flat.slice(i, i + ROWS * width);
      const n = part.length / width;
      (byCount[n] ??= db.prepare(`${head} VALUES ${Array.from({ length: n }, () => tuple).join(', ')}`)).run(...part);
    }
  };
}
