import Database from 'better-sqlite3';
import { rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSampleDataset } from '../../electron/service/domain/sample/createSample.js';
import { openDatabase, type Db } from '../../electron/service/store/db.js';
import { freePageStore } from '../../electron/service/store/freePages.js';
import { startService, tempDir, type TestService } from '../support/service.js';

// Databases made since auto_vacuum=INCREMENTAL (store/db.ts) give back the pages large rewrites
// free (store/freePages.ts): the full-text index's merges after an import's catch-up left ~4 % of
// a 10k database free. On real files: a new database takes the mode, an older one keeps working
// without it, and the pages really leave the file.

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
  it('a new database is incremental; reclaiming empties the free list and shrinks the file', () => {
    const file = path.join(dir(), 'odr.sqlite');
    const db = openDatabase(file);
    try {
      expect(pragma(db, 'auto_vacuum')).toBe(2);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      freeSome(db, 400);
      const free = pragma(db, 'freelist_count');
      expect(free).toBeGreaterThanOrEqual(400);
      const pages = pragma(db, 'page_count');
      expect(freePageStore(db).reclaim()).toBe(free);
      expect(pragma(db, 'freelist_count')).toBe(0);
      expect(pragma(db, 'page_count')).toBe(pages - free);
      db.pragma('wal_checkpoint(TRUNCATE)');
      expect(statSync(file).size).toBe((pages - free) * pragma(db, 'page_size'));
      expect(db.prepare('SELECT count(*) FROM _migrations').pluck().get()).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  it('a few free pages stay for the next writes; inside a transaction nothing is reclaimed', () => {
    const db = openDatabase(path.join(dir(), 'odr.sqlite'));
    try {
      freeSome(db, 300);
      // 300 pages is well over 1 % of this small file: only the transaction holds it back.
      db.transaction(() => expect(freePageStore(db).reclaim()).toBe(0))();
      expect(pragma(db, 'freelist_count')).toBeGreaterThanOrEqual(300);
      freePageStore(db).reclaim();
      freeSome(db, 8);
      const few = pragma(db, 'freelist_count');
      expect(few).toBeGreaterThan(0);
      expect(freePageStore(db).reclaim()).toBe(0);
      expect(pragma(db, 'freelist_count')).toBe(few);
    } finally {
      db.close();
    }
  });

  it('a database made before keeps its mode, opens, migrates and reclaims nothing', () => {
    const file = path.join(dir(), 'odr.sqlite');
    const old = new Database(file);
    old.exec("CREATE TABLE kept (x TEXT); INSERT INTO kept VALUES ('still here')");
    old.close();
    const db = openDatabase(file);
    try {
      expect(pragma(db, 'auto_vacuum')).toBe(0);
      freeSome(db, 100);
      const free = pragma(db, 'freelist_count');
      expect(freePageStore(db).reclaim()).toBe(0);
      expect(pragma(db, 'freelist_count')).toBe(free);
      expect(db.prepare('SELECT x FROM kept').pluck().get()).toBe('still here');
    } finally {
      db.close();
    }
  });

  it("an import's full-text catch-up leaves no free pages behind", async () => {
    t = await startService();
    const d = t.service.domain;
    const user = d.users.firstSuperUser()!;
    const N = 10_000;
    const db = t.service.ctx.db;
    // The background indexer stays out: this catch-up is the one measured.
    const release = d.search.hold();
    try {
      await createSampleDataset(d, user, N, { progress: () => true, cancelled: () => false });
      // Its segment merges free pages (~250 at this size); what is left free after it is none.
      d.search.catchUp();
    } finally {
      release();
    }
    expect(d.search.current()).toBe(true);
    expect(pragma(db, 'freelist_count')).toBe(0);
    expect(db.prepare('SELECT count(*) FROM record_search').pluck().get()).toBe(N);
  });
});
