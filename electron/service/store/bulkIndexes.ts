import type { Db } from './db.js';
import { perConnection } from './prepared.js';
import { transaction } from './tx.js';

// The per-field value indexes take one insert at a random place per value: once they outgrow
// the page cache, every batch of a large import rewrites thousands of scattered pages, and the
// import rate fell by half between 0 and 300k records. A bulk import drops them and builds them
// once at its end (a sort, with full pages: smaller too). Searches stay correct meanwhile, only
// slower. Their CREATE statements wait in `meta` while they are gone, so an import that dies
// half way leaves them to be rebuilt by the next start (openDatabase).

/** The indexes a bulk import may defer: search uses them, no constraint depends on them. */
export const DEFERRABLE_INDEXES = ['field_values_by_field', 'field_values_by_number'] as const;
const KEY = 'deferred_indexes';

export const bulkIndexStore = perConnection((db: Db) => {
  const s = {
    sql: db.prepare<[string], string>("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?").pluck(),
    saved: db.prepare<[], string>(`SELECT value FROM meta WHERE key = '${KEY}'`).pluck(),
    save: db.prepare<[string]>(`INSERT INTO meta (key, value) VALUES ('${KEY}', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`),
    forget: db.prepare(`DELETE FROM meta WHERE key = '${KEY}'`),
    topRecords: db.prepare<[], number>('SELECT COALESCE(MAX(rid), 0) FROM records').pluck(),
  };
  const saved = (): Record<string, string> => JSON.parse(s.saved.get() ?? '{}') as Record<string, string>;
  return {
    /** Rows of `records` so far (max rid: no scan), to weigh a bulk import against. */
    recordsStored: () => s.topRecords.get() ?? 0,
    /** Names of indexes dropped and not yet rebuilt. */
    deferred: (): string[] => Object.keys(saved()),
    /** Drops the deferrable indexes, keeping their definitions to rebuild. */
    defer: () =>
      transaction(
        db,
        () => {
          const keep = saved();
          for (const name of DEFERRABLE_INDEXES) {
            const sql = s.sql.get(name);
            if (!sql) continue;
            keep[name] = sql;
            db.exec(`DROP INDEX ${name}`);
          }
          s.save.run(JSON.stringify(keep));
        },
        'immediate',
      ),
    /** Builds every deferred index again (one sort each) and forgets them; idempotent. */
    rebuild: () => {
      const keep = saved();
      if (!Object.keys(keep).length) return;
      // The sort spills past its 64 MB runs (cache_size) at ~400k records. With temp_store=MEMORY
      // (db.ts, for queries' small temp B-trees) the runs went to in-memory temp files: at 1M the
      // build took 38 s CPU and 1 GB of RSS, against 26.5 s and 270-460 MB with real temp files
      // (the OS page cache holds them; deleted at the end), same runs. MEMORY also turns the
      // sorter's helper threads off; with files one helper sorts a full run while this thread
      // reads the next (two runs in memory at most). Both go back after the build.
      const threads = db.pragma('threads', { simple: true }) as number;
      const tempStore = db.pragma('temp_store', { simple: true }) as number;
      // The pragma cannot change inside a transaction (none of the callers is in one).
      const files = !db.inTransaction;
      if (files) db.pragma('temp_store = FILE');
      db.pragma('threads = 1');
      // An index build is one transaction of ~600 MB of pages at 1M records: past the backstop
      // (store/checkpointer.ts) its commit checkpointed all of it on this thread (13 of 49 s at
      // 1M). The checkpointer's worker copies it instead; without a worker, the next commit after
      // the backstop is back checkpoints it as before.
      const backstop = db.pragma('wal_autocheckpoint', { simple: true }) as number;
      db.pragma('wal_autocheckpoint = 0');
      try {
        for (const [name, sql] of Object.entries(keep)) {
          transaction(
            db,
            () => {
              if (!s.sql.get(name)) db.exec(sql);
              const rest = saved();
              delete rest[name];
              if (Object.keys(rest).length) s.save.run(JSON.stringify(rest));
              else s.forget.run();
            },
            'immediate',
          );
        }
      } finally {
        db.pragma(`threads = ${threads}`);
        if (files) db.pragma(`temp_store = ${tempStore}`);
        db.pragma(`wal_autocheckpoint = ${backstop}`);
      }
    },
  };
});
