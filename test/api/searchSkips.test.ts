import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { seededRandom } from '../../shared/seededRandom.js';
import { matchingRids } from '../support/searchRids.js';
import { openDatabase } from '../../electron/service/store/db.js';
import { MIGRATIONS } from '../../electron/service/store/migrations/index.js';
import { searchIndexStore } from '../../electron/service/store/searchIndex.js';
import { searchSkipsStore } from '../../electron/service/store/searchSkips.js';
import { ftsQuery } from '../../electron/service/domain/search/searchIndex.js';
import { startService, startSyntheticService, tempDir, type TestService } from '../support/service.js';

// The skip list (migration 023, store/searchSkips.ts) lets the vocabulary walk jump past a term
// of a long doclist. A wrong entry hides terms from prefix expansions, and so matches from
// searches: after every write, with entries for nearly every term (a threshold of 2 records),
// the walk must equal the plain vocabulary's term list, and every search the plain prefix query.

const FIELD = SYNTH.field('Long Text');

describe('skip list under random writes', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startSyntheticService(12);
  }, 60_000);
  afterAll(() => t.close());

  it('the walk with skips equals the plain vocabulary after every insert, edit and delete', async () => {
    const d = t.service.domain;
    d.search.longDocs = 2;
    const db = d.ctx.db;
    const store = searchIndexStore(db);
    const skips = searchSkipsStore(db);
    // The reference: the 'row' vocabulary's own listing, no skip involved.
    const plain = db.prepare<[string, string], string>('SELECT term FROM record_search_rows WHERE term >= ? AND term < ?').pluck();
    const rids = matchingRids(t.service);

    const rand = seededRandom(23);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    // ASCII words sharing prefixes, and words FTS5 folds or orders by bytes: accents, ß, Greek,
    // CJK, other digits, and letters past U+FFFF beside fullwidth ones (UTF-16 orders those apart).
    const words = [
      'qa',
      'qab',
      'qabc',
      'qabd',
      'qb',
      'qba',
      'q1',
      'q10',
      'q2',
      'qé',
      'QÉa',
      'qè',
      'qß',
      'qstraße',
      'qλόγος',
      'qΣίσυφος',
      'q東京',
      'q東',
      'q٣٤',
      'qｑａ',
      'q𝔮a',
      'q𝔮',
      'qz',
      'qzz',
    ];
    const prefixes = ['q', 'qa', 'qab', 'qb', 'q1', 'qe', 'qz', 'qs', 'qa qb', 'qabc'];
    const records = Array.from({ length: 12 }, (_, i) => SYNTH.record(i));
    const text = () => Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pick(words)).join(rand() < 0.5 ? ' ' : ', ');

    const check = (step: number) => {
      for (const [from, to] of [
        ['q', 'r'],
        ['', '\x7f'],
        ['qa', 'qb'],
      ] as const) {
        expect(store.termsBetween(from, to, 1e6), `step ${step}: [${from}, ${to})`).toEqual(plain.all(from, to));
      }
      const input = pick(prefixes);
      expect(rids(d.search.matchQuery(input)), `step ${step}: ${input}`).toEqual(rids(ftsQuery(input)));
    };

    const started = Date.now();
    let entries = 0;
    for (let step = 0; step < 120 && Date.now() - started < 40_000; step++) {
      const r = rand();
      if (r < 0.55) await t.admin.setValue(pick(records), FIELD, text());
      else if (r < 0.75) {
        const rec = await t.admin.createRecord(SYNTH.dataset);
        records.push(rec.record_uuid as string);
        await t.admin.setValue(rec.record_uuid as string, FIELD, text());
      } else if (records.length > 4) {
        const i = Math.floor(rand() * records.length);
        await t.admin.deleteRecords([records[i]!]);
        records.splice(i, 1);
      }
      // The background pass in slices between writes: one term per slice, or a whole pass.
      const p = skips.pass();
      const slice = { from: p.scan ?? '', began: p.scan === null ? store.cursor() : p.began, done: p.done };
      if (rand() < 0.5) skips.slice(slice, rand() < 0.2 ? Infinity : 0, d.search.longDocs);
      if (rand() < 0.3) check(step);
      d.search.catchUp();
      check(step);
      entries = Math.max(entries, skips.size().rows);
    }
    // The entries existed: the walk took them.
    expect(entries).toBeGreaterThan(10);
  }, 90_000);
});

describe('a rolled-back reindex', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startSyntheticService(12);
  }, 60_000);
  afterAll(() => t.close());

  it('that first tokenized a non-ASCII body leaves later batches and searches working', async () => {
    const d = t.service.domain;
    d.search.longDocs = 2;
    d.search.catchUp();
    const skips = searchSkipsStore(d.ctx.db);
    skips.slice({ from: '', began: 0, done: -1 }, Infinity, 2);
    expect(skips.size().rows).toBeGreaterThan(0);
    // The first non-ASCII body creates the temp tokenizing table inside reindex's transaction.
    await t.admin.setValue(SYNTH.record(1), FIELD, 'Café crème');
    const rolledBack = d.ctx.db.transaction(() => {
      d.search.catchUp();
      throw new Error('rolled back');
    });
    expect(rolledBack).toThrow('rolled back');
    await t.admin.setValue(SYNTH.record(2), FIELD, 'Straße');
    expect(() => d.search.catchUp()).not.toThrow();
    const rids = matchingRids(t.service);
    for (const q of ['caf', 'stra', 'crème']) expect(rids(d.search.matchQuery(q)), q).toEqual(rids(ftsQuery(q)));
    expect(rids(d.search.matchQuery('straße')).length).toBe(1);
  });
});

describe('a database from before the skip list', () => {
  it('gets its entries from the first pass after the migration', async () => {
    const dir = tempDir('odr-skips-');
    const file = path.join(dir, 'odr.sqlite');
    const old = openDatabase(file, { migrations: MIGRATIONS.filter((m) => m.version < 23) });
    const ins = old.prepare('INSERT INTO record_search (rowid, body) VALUES (?, ?)');
    // "common" in 4,200 bodies: past the default threshold (4,096), "middle" in 100, below it.
    old.transaction(() => {
      for (let i = 1; i <= 4200; i++) ins.run(i, `common ${i <= 100 ? 'middle' : ''} rare${i}`);
    })();
    old.close();
    const t = await startService({ dataDir: dir });
    try {
      await t.service.domain.search.refreshSkips();
      const skips = searchSkipsStore(t.service.ctx.db);
      expect(skips.size().rows).toBe(1);
      expect(skips.next('common')).toBe('middle');
      expect(skips.next('middle')).toBeUndefined();
      expect(skips.pass().scan).toBeNull();
      expect(searchIndexStore(t.service.ctx.db).termsBetween('c', 'n', 10)).toEqual(['common', 'middle']);
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('passes over time', () => {
  it('a pass that falls due runs, though an earlier call found none due', async () => {
    const t = await startService();
    try {
      const db = t.service.ctx.db;
      const search = t.service.domain.search;
      // Nothing due twice over (the first pass of a new database ran at once, or just now).
      await search.refreshSkips();
      await search.refreshSkips();
      const ins = db.prepare('INSERT INTO record_search (rowid, body) VALUES (?, ?)');
      db.transaction(() => {
        for (let i = 1; i <= 4200; i++) ins.run(1e6 + i, `often rare${i}`);
      })();
      // As if no pass had finished (a pass is due again after 20,000 changes).
      db.prepare("DELETE FROM meta WHERE key = 'search_skips'").run();
      await search.refreshSkips();
      expect(searchSkipsStore(db).next('often')).toBe('rare1');
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('background indexing during a pass', () => {
  it('indexes new changes between the slices of a pass the indexer started', async () => {
    const t = await startSyntheticService(3);
    try {
      const db = t.service.ctx.db;
      const search = t.service.domain.search;
      const index = searchIndexStore(db);
      const skips = searchSkipsStore(db);
      search.stop();
      await search.refreshSkips();
      // One term a slice over 20,000 terms: the pass lasts 20,000 event-loop turns.
      search.skipSliceMs = 0;
      search.longDocs = 2;
      const ins = db.prepare('INSERT INTO record_search (rowid, body) VALUES (?, ?)');
      db.transaction(() => {
        for (let i = 1; i <= 20_000; i++) ins.run(1e6 + i, `often w${i}`);
      })();
      db.prepare("DELETE FROM meta WHERE key = 'search_skips'").run();
      search.start(1);
      const until = async (what: string, ok: () => boolean) => {
        const deadline = Date.now() + 20_000;
        while (!ok()) {
          if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
          await new Promise((r) => setImmediate(r));
        }
      };
      // The indexer's tick started the pass; a write now must be indexed before it ends.
      await until('the pass to start', () => skips.pass().scan !== null);
      await t.admin.setValue(SYNTH.record(1), FIELD, 'written during the pass');
      await until('the change to be indexed or the pass to end', () => search.current() || skips.pass().scan === null);
      expect(skips.pass().scan, 'the pass is still under way').not.toBeNull();
      expect(index.cursor()).toBeGreaterThanOrEqual(index.lastSeq());
      await until('the pass to end', () => skips.pass().scan === null);
      // Entries were written, and the walk with them still lists every term.
      expect(skips.size().rows).toBeGreaterThan(0);
      const plain = db.prepare<[], string>("SELECT term FROM record_search_rows WHERE term >= 'a' AND term < 'x'").pluck();
      expect(index.termsBetween('a', 'x', 1e6)).toEqual(plain.all());
    } finally {
      await t.close();
    }
  }, 60_000);
});
