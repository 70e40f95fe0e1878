import type { Db } from './db.js';

function build(db: Db) {
  return {
    /** The dataset's first top-level record: the one POST /dataset redirects to ("metadata record"). */
    firstTopRecord: db
      .prepare<[number], string>('SELECT uuid FROM records WHERE datatype_id = ? AND parent_rid IS NULL ORDER BY rid LIMIT 1')
      .pluck(),
    /** A record and all its descendants, parents first. */
    subtree: db
      .prepare<[number], number>(
        `WITH RECURSIVE t(rid, depth) AS (SELECT ?, 0 UNION ALL SELECT r.rid, t.depth + 1 FROM records r JOIN t ON r.parent_rid = t.rid)
         SELECT rid FROM t ORDER BY depth, rid`,
      )
      .pluck(),
    setPublicDate: db.prepare<[string, string, number]>('UPDATE datatypes SET public_date = ?, updated_at = ? WHERE id = ?'),
  };
}

export type DatasetStore = ReturnType<typeof build>;
const byDb = new WeakMap<Db, DatasetStore>();

/** Dataset-level statements of `datatypes` and `records`; prepared once per connection. */
export function datasetStore(db: Db): DatasetStore {
  let s = byDb.get(db);
  if (!s) byDb.set(db, (s = build(db)));
  return s;
}
