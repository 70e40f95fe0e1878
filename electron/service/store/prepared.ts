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
