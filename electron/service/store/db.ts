import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { bulkIndexStore } from './bulkIndexes.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export type Db = Database.Database;

export interface OpenOptions {
  /** Path of a better_sqlite3.node built for the host's ABI (Electron passes its own). */
  nativeBinding?: string;
  migrations?: Migration[];
}

/**
 * SQLite's page cache per connection (KiB). Reads beyond it come from the OS page cache with
 * pread (no mmap, docs/store.md), so a larger cache mostly adds resident memory: 64 MB and 16 MB
 * read distinct records (0.227 / 0.226 ms p50) and list-100 pages (14.8 / 13.9 ms) alike at
 * 100k, alternating in one process, while 64 MB filled up under distinct reads and was ~48 MB of
 * the service's 340–400 MB peak RSS (issue 17).
 */
export const CACHE_SIZE_KIB = 16 * 1024;

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Opens (creating if needed) the service database: WAL so readers never wait for the writer,
 * synchronous=FULL so an acknowledged write survives a power cut, foreign keys on.
 */
export function openDatabase(file: string, opts: OpenOptions = {}): Db {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file, opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {});
  // Only a database without its first page can take it (switching to WAL writes that page): a new
  // one gives back what large rewrites free (store/freePages.ts); older ones keep their mode.
  if (db.pragma('page_count', { simple: true }) === 0) db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma(`cache_size = -${CACHE_SIZE_KIB}`);
  db.pragma('temp_store = MEMORY');
  migrate(db, file, opts.migrations ?? MIGRATIONS);
  // A bulk import that died before its end left its value indexes to build (store/bulkIndexes.ts).
  // If that fails (a full disk) the app still starts: searches scan meanwhile, the next open retries.
  if (db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'meta'").get()) {
    try {
      bulkIndexStore(db).rebuild();
    } catch (e) {
      console.error(`[odr] value indexes of ${file} not rebuilt; the next start retries:`, e);
    }
  }
  return db;
}

export function migrate(db: Db, file: string, migrations: Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS _migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, sha256 TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Map(
    (db.prepare('SELECT version, name, sha256 FROM _migrations').all() as { version: number; name: string; sha256: string }[]).map((r) => [
      r.version,
      r,
    ]),
  );
  for (const m of migrations) {
    const done = applied.get(m.version);
    if (done && done.sha256 !== sha(m.sql)) {
      throw new Error(`migration ${m.version} (${m.name}) changed after it was applied to ${file}`);
    }
  }
  const known = new Set(migrations.map((m) => m.version));
  const newer = [...applied.keys()].filter((v) => !known.has(v));
  if (newer.length) throw new Error(`${file} was written by a newer odr-desktop (migrations ${newer.join(', ')})`);

  const pending = migrations.filter((m) => !applied.has(m.version));
  if (!pending.length) return;
  // A database that already holds data is copied before its schema changes.
  if (applied.size > 0 && file !== ':memory:' && existsSync(file)) {
    const backup = `${file}.before-v${pending[0]!.version}.bak`;
    db.exec(`VACUUM INTO '${backup.replaceAll("'", "''")}'`);
  }
  const record = db.prepare('INSERT INTO _migrations (version, name, sha256, applied_at) VALUES (?, ?, ?, ?)');
  for (const m of pending) {
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, sha(m.sql), new Date().toISOString());
    })();
  }
}
