import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// records_by_parent and files_by_parent hold every top-level record (original file) under the
// one key NULL. A query that filters "parent_rid IS NULL" next to a selective term (a uuid, the
// records of a tree) must not be planned through them: that reads every top-level row of the
// database per call (the search indexer did, for each batch it indexed, growing with the
// database). Checked on every such statement the service prepared while writing and searching.

const NULL_PARENT = /parent_rid IS NULL/;
const seen = new Set<string>();
const prepare = Database.prototype.prepare;
let t: TestService;

beforeAll(async () => {
  Database.prototype.prepare = function (this: Database.Database, sql: string) {
    seen.add(sql);
    return prepare.call(this, sql);
  } as typeof prepare;
  try {
    t = await startSyntheticService(60);
    await t.admin.setValue(SYNTH.record(3), SYNTH.field('Long Text'), 'planned words');
    t.service.domain.search.catchUp();
  } finally {
    Database.prototype.prepare = prepare;
  }
});
afterAll(() => t?.close());

describe('top-level filters and the parent indexes', () => {
  it('no statement filtering parent_rid IS NULL reaches rows through a parent index', () => {
    const db = t.service.ctx.db;
    const checked: string[] = [];
    const bad: string[] = [];
    for (const sql of seen) {
      if (!NULL_PARENT.test(sql) || /[@:$][A-Za-z_]/.test(sql)) continue;
      const params = Array<null>((sql.match(/\?/g) ?? []).length).fill(null);
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...params)
        .map((r) => (r as { detail: string }).detail);
      checked.push(sql);
      if (plan.some((p) => /\b(records|files)_by_parent\b/.test(p))) bad.push(`${sql}\n  → ${plan.join(' | ')}`);
    }
    // The search indexer's statements are among those checked: the test cannot pass empty.
    expect(checked.some((s) => s.includes('json_each') && s.includes('uuid IN'))).toBe(true);
    expect(bad).toEqual([]);
  });
});
