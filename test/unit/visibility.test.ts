import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { PRIVATE_DATE } from '../../shared/dates.js';
import { rowVisibleSql, rowVisibleTo, type VisibilityFacts } from '../../electron/service/store/visibility.js';

// The row rule "may this viewer read this record" exists as TypeScript (reads, the fast path,
// the render cache) and as SQL (lists, the record table, search, stats): both must agree.
describe('record visibility: one rule, two forms', () => {
  it('the SQL condition and the TypeScript predicate choose the same rows', () => {
    const now = '2026-03-01 12:00:00';
    const rows: VisibilityFacts[] = [];
    for (const created_by of [null, 1, 2])
      for (const public_date of [PRIVATE_DATE, '2026-03-01 12:00:00', '2026-03-01 12:00:01', '2000-01-01 00:00:00', '2199-12-31 23:59:59'])
        rows.push({ created_by, public_date });
    const db = new Database(':memory:');
    db.exec('CREATE TABLE records (id INTEGER PRIMARY KEY, created_by INTEGER, public_date TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO records (id, created_by, public_date) VALUES (?, ?, ?)');
    rows.forEach((r, i) => insert.run(i, r.created_by, r.public_date));
    for (const viewer of [1, 2, 3]) {
      const bySql = db
        .prepare(`SELECT id FROM records r WHERE ${rowVisibleSql('r')} ORDER BY id`)
        .pluck()
        .all({ user: viewer, now });
      const byTs = rows.flatMap((r, i) => (rowVisibleTo(r, viewer, now) ? [i] : []));
      expect(bySql, `viewer ${viewer}`).toEqual(byTs);
      // Not vacuous: some rows are hidden, some shown.
      expect(byTs.length).toBeGreaterThan(0);
      expect(byTs.length).toBeLessThan(rows.length);
    }
    db.close();
  });
});
