import { rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { createService } from '../../electron/service/service.js';
import { withBulkIndexes } from '../../electron/service/domain/import/bulkIndexes.js';
import { importRecordStream, importTemplate } from '../../electron/service/domain/import/importFile.js';
import { syntheticRecords } from '../../electron/service/domain/sample/createSample.js';
import { syntheticTemplate } from '../../electron/service/domain/sample/synthetic.js';
import { bulkIndexStore, DEFERRABLE_INDEXES } from '../../electron/service/store/bulkIndexes.js';
import { openDatabase } from '../../electron/service/store/db.js';
import { startService, tempDir, type TestService } from '../support/service.js';

// A bulk import drops the per-field value indexes and builds them once at its end
// (store/bulkIndexes.ts). These tests hold it to: the indexes come back exactly as they were
// (after success, failure, and a process that died half way), small imports keep them, and the
// searches that use them answer the same either way.

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

type Db = TestService['service']['ctx']['db'];
const indexSql = (db: Db) =>
  Object.fromEntries(
    DEFERRABLE_INDEXES.map((n) => [n, db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?").pluck().get(n)]),
  );

async function withTemplate(keepDir = false): Promise<TestService> {
  const s = await startService({ keepDir });
  importTemplate(s.service.domain, s.service.domain.users.firstSuperUser()!, syntheticTemplate(), {});
  return s;
}

/** Records 0..n-1, calling `during` once with the database while the import runs. */
async function* watched(n: number, during: () => void): AsyncGenerator<unknown> {
  let i = 0;
  for await (const r of syntheticRecords(n)) {
    if (i++ === Math.floor(n / 2)) during();
    yield r;
  }
}

const search = async (s: TestService, fields: unknown[]) =>
  (
    (await (
      await fetch(`${s.api}/dataset/${SYNTH.dataset}/search`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${s.admin.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ fields }),
      })
    ).json()) as { records: { record_uuid: string }[] }
  ).records
    .map((r) => r.record_uuid)
    .sort();

/** The next start of the service in `dataDir` has every value index as `before`; the directory goes. */
async function rebuiltAtNextStart(dataDir: string, before: Record<string, unknown>): Promise<void> {
  const again = await createService({ dataDir });
  try {
    expect(indexSql(again.ctx.db)).toEqual(before);
    expect(bulkIndexStore(again.ctx.db).deferred()).toEqual([]);
  } finally {
    await again.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const QUERIES = [
  [{ field_uuid: SYNTH.field('Decimal'), value: '>=-100 <250.5' }],
  [{ field_uuid: SYNTH.field('Short Text'), value: '"S-000042"' }],
  [{ field_uuid: SYNTH.field('Integer'), value: '>=0 <40000' }],
  [{ field_uuid: SYNTH.field('Medium Text'), value: 'basalt' }],
];

describe('bulk imports build the value indexes once at their end', () => {
  it('a large import drops them while it runs and builds the same ones at its end; searches agree', async () => {
    t = await withTemplate();
    const db = t.service.ctx.db;
    const before = indexSql(db);
    expect(Object.values(before).every((s) => typeof s === 'string')).toBe(true);
    let during: Record<string, unknown> = {};
    let deferred: string[] = [];
    const user = t.service.domain.users.firstSuperUser()!;
    await importRecordStream(
      t.service.domain,
      user,
      watched(300, () => {
        during = indexSql(db);
        deferred = bulkIndexStore(db).deferred();
      }),
      () => 0,
      { expectedRecords: 50_000 },
    );
    expect(Object.values(during)).toEqual(DEFERRABLE_INDEXES.map(() => undefined));
    expect(deferred.sort()).toEqual([...DEFERRABLE_INDEXES].sort());
    expect(indexSql(db)).toEqual(before);
    expect(bulkIndexStore(db).deferred()).toEqual([]);

    // The same records imported in small batches with the indexes kept answer every search alike.
    const kept = await withTemplate();
    try {
      await importRecordStream(kept.service.domain, kept.service.domain.users.firstSuperUser()!, syntheticRecords(300), () => 0, {
        expectedRecords: 300,
      });
      for (const q of QUERIES) {
        const want = await search(kept, q);
        expect(want.length).toBeGreaterThan(0);
        expect(await search(t, q)).toEqual(want);
      }
    } finally {
      await kept.close();
    }
  });

  it('an import that fails half way still builds them again', async () => {
    t = await withTemplate();
    const db = t.service.ctx.db;
    const before = indexSql(db);
    async function* broken(): AsyncGenerator<unknown> {
      yield* syntheticRecords(1500);
      throw new Error('the source broke');
    }
    await expect(
      importRecordStream(t.service.domain, t.service.domain.users.firstSuperUser()!, broken(), () => 0, { expectedRecords: 50_000 }),
    ).rejects.toThrow(/the source broke/);
    expect(indexSql(db)).toEqual(before);
    expect(bulkIndexStore(db).deferred()).toEqual([]);
  });

  it('a process that died with them dropped gets them back at the next start', async () => {
    t = await withTemplate(true);
    const before = indexSql(t.service.ctx.db);
    bulkIndexStore(t.service.ctx.db).defer();
    expect(indexSql(t.service.ctx.db)).toEqual(Object.fromEntries(DEFERRABLE_INDEXES.map((n) => [n, undefined])));
    const dataDir = t.dataDir;
    await t.close();
    await rebuiltAtNextStart(dataDir, before);
    t = undefined;
  });

  it("a rebuild that fails neither hides the import's outcome nor stops the next start; that start retries", async () => {
    t = await withTemplate(true);
    const db = t.service.ctx.db;
    const before = indexSql(db);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const domain = t.service.domain;
      const user = domain.users.firstSuperUser()!;
      // An index definition that cannot be built stands for a rebuild that fails (a full disk).
      const breakOne = () =>
        db
          .prepare(
            "UPDATE meta SET value = json_set(value, '$.field_values_by_number', 'CREATE INDEX field_values_by_number ON nowhere(x)') WHERE key = 'deferred_indexes'",
          )
          .run();
      const answer = await withBulkIndexes(domain, 50_000, async () => {
        await importRecordStream(domain, user, syntheticRecords(50), () => 0);
        expect(breakOne().changes).toBe(1);
        return 'imported';
      });
      expect(answer).toBe('imported');
      expect(bulkIndexStore(db).deferred()).toEqual(['field_values_by_number']);
      expect(indexSql(db).field_values_by_field).toBe(before.field_values_by_field);
      expect(errors).toHaveBeenCalled();
      const dataDir = t.dataDir;
      await t.close();
      t = undefined;

      // Still broken at the next open: the service starts anyway, the marker stays for a retry.
      const started = await createService({ dataDir });
      try {
        expect(bulkIndexStore(started.ctx.db).deferred()).toEqual(['field_values_by_number']);
        started.ctx.db
          .prepare("UPDATE meta SET value = json_set(value, '$.field_values_by_number', ?) WHERE key = 'deferred_indexes'")
          .run(before.field_values_by_number as string);
      } finally {
        await started.close();
      }
      await rebuiltAtNextStart(dataDir, before);
    } finally {
      errors.mockRestore();
    }
  });

  it('small imports, and imports small beside what is stored, keep them', async () => {
    t = await withTemplate();
    const db = t.service.ctx.db;
    const user = t.service.domain.users.firstSuperUser()!;
    const seen: string[][] = [];
    const look = () => seen.push(bulkIndexStore(db).deferred());
    await importRecordStream(t.service.domain, user, watched(100, look), () => 0, { expectedRecords: 100 });
    await importRecordStream(t.service.domain, user, watched(100, look), () => 0);
    expect(seen).toEqual([[], []]);
    expect(bulkIndexStore(db).recordsStored()).toBeGreaterThanOrEqual(100);
  });

  it('the numeric index holds only values that read as numbers, and decimal ranges still find every match', async () => {
    t = await withTemplate();
    const db = t.service.ctx.db;
    await importRecordStream(t.service.domain, t.service.domain.users.firstSuperUser()!, syntheticRecords(200), () => 0);
    const entries = db
      .prepare(
        "SELECT COUNT(*) FROM field_values INDEXED BY field_values_by_number WHERE typeof(value) = 'text' AND value GLOB '[0-9.+-]*'",
      )
      .pluck()
      .get() as number;
    const textValues = db.prepare("SELECT COUNT(*) FROM field_values WHERE typeof(value) = 'text'").pluck().get() as number;
    // Decimal, date, and the children's decimal: about a quarter of the text values, not all.
    expect(entries).toBeGreaterThan(0);
    expect(entries).toBeLessThan(textValues / 3);
    const decimals = db
      .prepare('SELECT value FROM field_values WHERE datafield_id = (SELECT id FROM datafields WHERE uuid = ?) AND value IS NOT NULL')
      .pluck()
      .all(SYNTH.field('Decimal')) as string[];
    const want = decimals.filter((v) => Number(v) >= -100 && Number(v) < 250.5).length;
    expect(want).toBeGreaterThan(0);
    expect(await search(t, QUERIES[0]!)).toHaveLength(want);
  });

  it('imported decimals are stored normalised, so ranges find them; text that is no number is kept', async () => {
    t = await withTemplate();
    const decimal = SYNTH.field('Decimal');
    const given = [' 3.5', '+4', '.5', '007.25', 'about 3'];
    async function* records(): AsyncGenerator<unknown> {
      let i = 0;
      for await (const r of syntheticRecords(given.length)) {
        const rec = r as { fields: { field_uuid: string; value?: unknown }[] };
        rec.fields.find((f) => f.field_uuid === decimal)!.value = given[i++];
        yield rec;
      }
    }
    await importRecordStream(t.service.domain, t.service.domain.users.firstSuperUser()!, records(), () => 0);
    const stored = t.service.ctx.db
      .prepare('SELECT value FROM field_values WHERE datafield_id = (SELECT id FROM datafields WHERE uuid = ?) ORDER BY record_rid')
      .pluck()
      .all(decimal);
    expect(stored).toEqual(['3.5', '4', '0.5', '7.25', 'about 3']);
    expect(await search(t, [{ field_uuid: decimal, value: '>=0.4 <10' }])).toHaveLength(4);
  });

  it('a rebuild sorts through temp files (its runs spilled to memory took 1 GB at 1M) and puts the connection back', () => {
    const dir = tempDir('odr-rebuild-');
    const db = openDatabase(path.join(dir, 'odr.sqlite'));
    try {
      db.pragma('foreign_keys = OFF'); // value rows without their records: only the index build matters here
      const ins = db.prepare(
        "INSERT INTO field_values (record_rid, datafield_id, value, create_date, update_date, create_auth) VALUES (?, ?, ?, '', '', '')",
      );
      const indexes = bulkIndexStore(db);
      indexes.defer();
      db.transaction(() => {
        for (let i = 0; i < 30_000; i++) ins.run(i, 1 + (i % 3), `${(i * 7919) % 30_000}.5 value ${'x'.repeat(i % 40)}`);
      })();
      // ~1 MB sort runs (the smallest SQLite takes), so this sort spills as a 1M import's does.
      db.pragma('cache_size = -256');
      expect(db.pragma('temp_store', { simple: true })).toBe(2); // db.ts: MEMORY for queries
      const threads = db.pragma('threads', { simple: true });
      const during: unknown[] = [];
      const exec = db.exec.bind(db);
      db.exec = (sql: string) => {
        if (/^CREATE INDEX/i.test(sql)) during.push(db.pragma('temp_store', { simple: true }));
        return exec(sql);
      };
      indexes.rebuild();
      db.exec = exec;
      expect(during).toEqual([1, 1]); // FILE for each index built
      expect(db.pragma('temp_store', { simple: true })).toBe(2);
      expect(db.pragma('threads', { simple: true })).toBe(threads);
      expect(indexes.deferred()).toEqual([]);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      // The index built from spilled runs is in order: its walk equals a sort of the rows.
      const walked = db
        .prepare(
          'SELECT record_rid FROM field_values INDEXED BY field_values_by_field WHERE datafield_id = 2 ORDER BY value COLLATE NOCASE, record_rid',
        )
        .pluck()
        .all();
      const sorted = db
        .prepare('SELECT record_rid FROM field_values NOT INDEXED WHERE datafield_id = 2 ORDER BY value COLLATE NOCASE, record_rid')
        .pluck()
        .all();
      expect(walked).toHaveLength(10_000);
      expect(walked).toEqual(sorted);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a rebuild's commit leaves its pages in the WAL for the checkpointer and puts the backstop back", () => {
    // A bare connection: no checkpointer worker, so only this thread could move pages to the file.
    const dir = tempDir('odr-rebuild-');
    const file = path.join(dir, 'odr.sqlite');
    const db = openDatabase(file);
    try {
      db.pragma('foreign_keys = OFF'); // value rows without their records: only the index build matters here
      const ins = db.prepare(
        "INSERT INTO field_values (record_rid, datafield_id, value, create_date, update_date, create_auth) VALUES (?, 1, ?, '', '', '')",
      );
      const indexes = bulkIndexStore(db);
      indexes.defer();
      db.transaction(() => {
        for (let i = 0; i < 20_000; i++) ins.run(i, `value ${i} ${'x'.repeat(i % 50)}`);
      })();
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.pragma('wal_autocheckpoint = 100');
      const before = statSync(file).size;
      indexes.rebuild();
      expect(indexes.deferred()).toEqual([]);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(100);
      // Well past the backstop (100 pages), yet the file has not grown: no checkpoint ran here.
      expect(statSync(`${file}-wal`).size).toBeGreaterThan(100 * 4096);
      expect(statSync(file).size).toBe(before);
      db.pragma('wal_checkpoint(TRUNCATE)');
      expect(statSync(file).size).toBeGreaterThan(before);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
