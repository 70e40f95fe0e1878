import Database from 'better-sqlite3';
import { rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSampleDataset } from '../../electron/service/domain/sample/createSample.js';
import { openDatabase, type Db } from '../../electron/service/store/db.js';
import { withBulkIndexes } from '../../electron/service/domain/import/bulkIndexes.js';
import { reclaimFreePages } from '../../electron/service/domain/reclaimFreePages.js';
import { bulkIndexStore } from '../../electron/service/store/bulkIndexes.js';
import { freePageStore } from '../../electron/service/store/freePages.js';
import { startService, tempDir, type TestService } from '../support/service.js';

// Databases made since auto_vacuum=INCREMENTAL (store/db.ts) give back the pages large rewrites
// free (store/freePages.ts): the full-text index's merges after an import's catch-up left ~4 % of
// a 10k database free. On real files: a new database takes the mode, an older one keeps working
// without it, and the pages really leave the file, in bounded steps, from the background indexer
// (never a search's catch-up) and at a bulk import's end.

const dirs: string[] = [];
let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const dir = () => {
  const d = tempDir('odr-free-');
  dirs.push(d);
  return d;
};

const pragma = (db: Db, name: string) => db.pragma(name, { simple: true }) as number;
/** Fills a table with ~`pages` pages, then deletes it all: those pages are free. */
function freeSome(db: Db, pages: number): void {
  db.exec('CREATE TABLE IF NOT EXISTS scratch (b BLOB)');
  const ins = db.prepare('INSERT INTO scratch (b) VALUES (randomblob(3000))');
  db.transaction(() => {
    for (let i = 0; i < pages; i++) ins.run();
  })();
  db.exec('DELETE FROM scratch');
}

describe('free pages', () => {
  it('a new database is incremental; reclaiming empties the free list and shrinks the file', async () => {
    const file = path.join(dir(), 'odr.sqlite');
    const db = openDatabase(file);
    try {
      expect(pragma(db, 'auto_vacuum')).toBe(2);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      freeSome(db, 400);
      const free = pragma(db, 'freelist_count');
      expect(free).toBeGreaterThanOrEqual(400);
      const pages = pragma(db, 'page_count');
      expect(await reclaimFreePages(db)).toBe(true);
      expect(pragma(db, 'freelist_count')).toBe(0);
      expect(pragma(db, 'page_count')).toBe(pages - free);
      db.pragma('wal_checkpoint(TRUNCATE)');
      expect(statSync(file).size).toBe((pages - free) * pragma(db, 'page_size'));
      expect(db.prepare('SELECT count(*) FROM _migrations').pluck().get()).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  it('a step moves at most its bound; a stopped reclaim leaves the rest for later', async () => {
    const db = openDatabase(path.join(dir(), 'odr.sqlite'));
    try {
      freeSome(db, 400);
      const free = pragma(db, 'freelist_count');
      expect(freePageStore(db).step(100)).toBe(100);
      expect(pragma(db, 'freelist_count')).toBe(free - 100);
      // Stopped after its first step (2,000 pages at most, here all of them): nothing is left.
      let turns = 0;
      expect(await reclaimFreePages(db, () => turns++ < 1)).toBe(true);
      expect(pragma(db, 'freelist_count')).toBe(0);
      freeSome(db, 400);
      expect(await reclaimFreePages(db, () => false)).toBe(false);
      expect(pragma(db, 'freelist_count')).toBeGreaterThanOrEqual(400);
    } finally {
      db.close();
    }
  });

  it('a few free pages stay for the next writes; inside a transaction nothing is reclaimed', async () => {
    const db = openDatabase(path.join(dir(), 'odr.sqlite'));
    try {
      freeSome(db, 300);
      // 300 pages is well over 1 % of this small file: only the transaction holds it back.
      db.transaction(() => {
        expect(freePageStore(db).worth()).toBe(false);
        expect(freePageStore(db).step()).toBe(0);
      })();
      expect(pragma(db, 'freelist_count')).toBeGreaterThanOrEqual(300);
      await reclaimFreePages(db);
      freeSome(db, 8);
      const few = pragma(db, 'freelist_count');
      expect(few).toBeGreaterThan(0);
      expect(await reclaimFreePages(db)).toBe(true);
      expect(pragma(db, 'freelist_count')).toBe(few);
    } finally {
      db.close();
    }
  });

  it('a database made before keeps its mode, opens, migrates and reclaims nothing', async () => {
    const file = path.join(dir(), 'odr.sqlite');
    const old = new Database(file);
    old.exec("CREATE TABLE kept (x TEXT); INSERT INTO kept VALUES ('still here')");
    old.close();
    const db = openDatabase(file);
    try {
      expect(pragma(db, 'auto_vacuum')).toBe(0);
      freeSome(db, 100);
      const free = pragma(db, 'freelist_count');
      expect(freePageStore(db).step()).toBe(0);
      await reclaimFreePages(db);
      expect(pragma(db, 'freelist_count')).toBe(free);
      expect(db.prepare('SELECT x FROM kept').pluck().get()).toBe('still here');
    } finally {
      db.close();
    }
  });

  it("a search's catch-up leaves the free pages to the background indexer, which gives them back", async () => {
    t = await startService();
    const d = t.service.domain;
    const user = d.users.firstSuperUser()!;
    const N = 10_000;
    const db = t.service.ctx.db;
    // The background indexer stays out until the catch-up (a search's) has run.
    const release = d.search.hold();
    try {
      await createSampleDataset(d, user, N, { progress: () => true, cancelled: () => false });
      d.search.catchUp();
      expect(d.search.current()).toBe(true);
      // Its segment merges freed ~250 pages (4 % of the file); the request path left them.
      expect(pragma(db, 'freelist_count')).toBeGreaterThan(pragma(db, 'page_count') / 100);
      // Held (a bulk import under way): nothing is reclaimed, and it stays to do.
      expect(await d.search.reclaim()).toBe(false);
      expect(pragma(db, 'freelist_count')).toBeGreaterThan(pragma(db, 'page_count') / 100);
    } finally {
      release();
    }
    // Value indexes deferred (a bulk import's): the same.
    const indexes = bulkIndexStore(db);
    indexes.defer();
    try {
      expect(await d.search.reclaim()).toBe(false);
      expect(pragma(db, 'freelist_count')).toBeGreaterThan(0);
    } finally {
      indexes.rebuild();
    }
    // Released: the background tick (short interval here) gives them back.
    d.search.stop();
    d.search.start(10);
    await vi.waitFor(() => expect(pragma(db, 'freelist_count')).toBe(0), { timeout: 30_000, interval: 20 });
    expect(db.prepare('SELECT count(*) FROM record_search').pluck().get()).toBe(N);
  });

  it('the background indexer reclaims after indexing full batches itself', async () => {
    t = await startService();
    const d = t.service.domain;
    const user = d.users.firstSuperUser()!;
    const db = t.service.ctx.db;
    d.search.stop();
    // 6,000 records: their changes are full batches for the indexer, none for a search.
    await createSampleDataset(d, user, 6_000, { progress: () => true, cancelled: () => false });
    expect(d.search.current()).toBe(false);
    // Their merges free little at this size: pages freed before make sure there is work to see.
    freeSome(db, 400);
    expect(pragma(db, 'freelist_count')).toBeGreaterThan(pragma(db, 'page_count') / 100);
    d.search.start(10);
    await vi.waitFor(() => expect(d.search.current()).toBe(true), { timeout: 30_000, interval: 20 });
    await vi.waitFor(() => expect(pragma(db, 'freelist_count')).toBe(0), { timeout: 30_000, interval: 20 });
  });

  it("a bulk import into a database that held data ends with its dropped indexes' pages given back, unless its rebuild failed", async () => {
    t = await startService();
    const d = t.service.domain;
    const user = d.users.firstSuperUser()!;
    const db = t.service.ctx.db;
    // The indexer stays held throughout: only the import's own reclaim may give pages back.
    const release = d.search.hold();
    try {
      await createSampleDataset(d, user, 6_000, { progress: () => true, cancelled: () => false });
      expect(pragma(db, 'freelist_count')).toBeLessThan(pragma(db, 'page_count') / 100);
      // A bulk import (its break-even set low here) that brings nothing new: the value indexes
      // of the 6,000 records are dropped and built again, packed, from the same rows.
      let dropped = 0;
      await withBulkIndexes(
        d,
        6_000,
        async () => {
          dropped = pragma(db, 'freelist_count');
        },
        1,
      );
      expect(dropped).toBeGreaterThan(pragma(db, 'page_count') / 100);
      expect(bulkIndexStore(db).deferred()).toEqual([]);
      expect(pragma(db, 'freelist_count')).toBeLessThan(pragma(db, 'page_count') / 100);

      // A rebuild that fails (an index definition that cannot be built, standing for a full
      // disk) leaves the pages free: the next start's rebuild needs them.
      const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
      try {
        await withBulkIndexes(
          d,
          6_000,
          async () => {
            db.prepare(
              "UPDATE meta SET value = json_set(value, '$.field_values_by_field', 'CREATE INDEX field_values_by_field ON nowhere(x)') WHERE key = 'deferred_indexes'",
            ).run();
          },
          1,
        );
      } finally {
        errors.mockRestore();
      }
      expect(bulkIndexStore(db).deferred()).toContain('field_values_by_field');
      expect(pragma(db, 'freelist_count')).toBeGreaterThan(pragma(db, 'page_count') / 100);
    } finally {
      release();
    }
  });
});
