import type { Db } from './db.js';
import { perConnection } from './prepared.js';

/** Dataset-level reads and writes of `datatypes` and `records`. */
export const datasetStore = perConnection((db: Db) => {
  const s = {
    firstTop: db
      .prepare<[number], string>('SELECT uuid FROM records WHERE datatype_id = ? AND parent_rid IS NULL ORDER BY rid LIMIT 1')
      .pluck(),
    subtree: db
      .prepare<[number], number>(
        `WITH RECURSIVE t(rid, depth) AS (SELECT ?, 0 UNION ALL SELECT r.rid, t.depth + 1 FROM records r JOIN t ON r.parent_rid = t.rid)
         SELECT rid FROM t ORDER BY depth, rid`,
      )
      .pluck(),
    setPublicDate: db.prepare<[string, string, number]>('UPDATE datatypes SET public_date = ?, updated_at = ? WHERE id = ?'),
  };
  return {
    /** The dataset's first top-level record: the one POST /dataset redirects to ("metadata record"). */
    firstTopRecordUuid: (datatypeId: number) => s.firstTop.get(datatypeId),
    /** A record's rid and all its descendants', parents first. */
    subtreeRids: (rid: number) => s.subtree.all(rid),
    setPublicDate: (datatypeId: number, date: string, at: string) => void s.setPublicDate.run(date, at, datatypeId),
  };
});
