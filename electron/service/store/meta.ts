import type { Db } from './db.js';
import { perConnection } from './prepared.js';

/** The `meta` table: small named values (secrets, cursors, revisions) kept with the data. */
export const metaStore = perConnection((db: Db) => {
  const s = {
    get: db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck(),
    set: db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
    insert: db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?)'),
    take: db.prepare<[string], string>('DELETE FROM meta WHERE key = ? RETURNING value').pluck(),
    bump: db.prepare<[string]>(
      "INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
    ),
  };
  return {
    get: (key: string): string | undefined => s.get.get(key),
    set: (key: string, value: string) => void s.set.run(key, value),
    /** Fails if the key exists (a value that must be chosen once). */
    insert: (key: string, value: string) => void s.insert.run(key, value),
    /** Removes a key, answering the value it had (a mark read once). */
    take: (key: string): string | undefined => s.take.get(key),
    /** Adds one to a counter, creating it at 1. */
    bump: (key: string) => void s.bump.run(key),
  };
});
