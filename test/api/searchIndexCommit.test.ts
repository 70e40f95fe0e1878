import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { searchIndexStore } from '../../electron/service/store/searchIndex.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// A search-index step's commit may be lost while the writes it indexed stay (store/searchIndex.ts
// says why). What this tests: the indexer, finding its cursor behind, brings the index to exactly
// what a fresh rebuild holds. It sets the cursor back as a lost commit does (and, harsher, behind
// index rows that did land), catches up, and compares every indexed term of every record with a
// rebuild from scratch.

let t: TestService;
beforeAll(async () => {
  t = await startSyntheticService(6);
});
afterAll(() => t.close());

const CURSOR = 'search_seq';

describe('search index steps', () => {
  it('after a lost commit, catching up leaves the index equal to a fresh rebuild: nothing stale, nothing missing', async () => {
    const search = t.service.domain.search;
    const db = t.service.ctx.db;
    const cursor = db.prepare<[], string>(`SELECT value FROM meta WHERE key = '${CURSOR}'`).pluck();
    const setCursor = db.prepare<[string]>(`UPDATE meta SET value = ? WHERE key = '${CURSOR}'`);
    const found = db.prepare<[string], string>(
      'SELECT r.uuid FROM record_search s JOIN records r ON r.rid = s.rowid WHERE record_search MATCH ? ORDER BY r.uuid',
    );
    const terms = db.prepare<[], [number, string, number]>(
      'SELECT doc, term, "offset" FROM record_search_instances ORDER BY doc, term, "offset"',
    );
    const field = SYNTH.field('Long Text');
    await t.admin.setValue(SYNTH.record(3), field, 'wombatold');
    search.catchUp();
    const before = cursor.get()!;

    const release = search.hold(); // the background indexer must not step in between
    try {
      // A step that was lost whole: writes after the cursor, the index as it was.
      await t.admin.setValue(SYNTH.record(3), field, 'quokkanew');
      await t.admin.deleteRecords([SYNTH.record(4)]);
      expect(search.current()).toBe(false);
      search.catchUp();
      // The step committed (and put synchronous back to FULL); now lose its cursor, not its rows:
      // the replay must also be right over index rows that are already newer than the cursor.
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
      setCursor.run(before);
      await t.admin.setValue(SYNTH.record(5), field, 'numbatnew');
      expect(search.current()).toBe(false);
      search.catchUp();
      expect(search.current()).toBe(true);
    } finally {
      release();
    }
    const caughtUp = terms.raw().all();

    expect(found.pluck().all('"quokkanew"')).toEqual([SYNTH.record(3)]);
    expect(found.pluck().all('"wombatold"')).toEqual([]);
    expect(found.pluck().all('"numbatnew"')).toEqual([SYNTH.record(5)]);
    const tops = db.prepare<[], string>('SELECT uuid FROM records WHERE parent_rid IS NULL ORDER BY uuid').pluck().all();
    expect(tops).not.toContain(SYNTH.record(4));
    // Every record is found by a word it holds (its uuid), and the deleted one by none.
    for (const uuid of [...tops, SYNTH.record(4)]) expect(found.pluck().all(`"${uuid}"`)).toEqual(tops.includes(uuid) ? [uuid] : []);

    // A fresh rebuild: the index emptied and every record indexed again in one step.
    db.prepare("INSERT INTO record_search (record_search) VALUES ('delete-all')").run();
    searchIndexStore(db).reindex(tops, Number(cursor.get()));
    expect(terms.raw().all()).toEqual(caughtUp);
    expect(caughtUp.length).toBeGreaterThan(tops.length * 10);
  });
});
