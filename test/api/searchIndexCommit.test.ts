import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// The indexer's steps commit without a WAL fsync of their own (store/searchIndex.ts): the index is
// rebuilt from the durable change log, and its fsyncs blocked the service's one JS thread under
// concurrent writers. Every step must still leave the connection at synchronous=FULL.

let t: TestService;
beforeAll(async () => {
  t = await startSyntheticService(6);
});
afterAll(() => t.close());

describe('search index steps', () => {
  it('commit with synchronous=NORMAL, put FULL back, and index what was written', async () => {
    const search = t.service.domain.search;
    const db = t.service.ctx.db;
    const release = search.hold(); // the background indexer must not take the step this test watches
    try {
      await t.admin.setValue(SYNTH.record(3), SYNTH.field('Long Text'), 'quokkaindexed');
      expect(search.current()).toBe(false);
      const pragmas: string[] = [];
      const pragma = db.pragma.bind(db);
      db.pragma = ((source: string, options?: { simple?: boolean }) => {
        pragmas.push(source);
        return pragma(source, options);
      }) as typeof db.pragma;
      try {
        search.catchUp();
      } finally {
        db.pragma = pragma;
      }
      expect(pragmas).toEqual(['synchronous = NORMAL', 'synchronous = FULL']);
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
      expect(search.current()).toBe(true);
    } finally {
      release();
    }
    const indexed = db.prepare(
      "SELECT r.uuid FROM record_search s JOIN records r ON r.rid = s.rowid WHERE record_search MATCH 'quokkaindexed'",
    );
    expect(indexed.pluck().all()).toEqual([SYNTH.record(3)]);
  });
});
