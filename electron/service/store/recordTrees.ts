import type { Db } from './db.js';
import { perConnection } from './prepared.js';
import { RECORD_COLUMNS, valueColumns, type FileRow, type RecordRow, type SelectionRow, type ValueRow } from './rows.js';

/** An option (is_tag 0) or tag (is_tag 1) selection of a record in a tree. */
export type TreeSelectionRow = SelectionRow & { is_tag: number };

const IN_TOPS = 'IN (SELECT value FROM json_each(?))';

type Arg = number | string;
function statements(db: Db, where: string) {
  return {
    records: db.prepare<[Arg], RecordRow>(`SELECT ${RECORD_COLUMNS} FROM records WHERE top_rid ${where} ORDER BY rid`),
    values: db.prepare<[Arg], ValueRow>(
      `SELECT ${valueColumns('v', 'r')}
       FROM records r JOIN field_values v ON v.record_rid = r.rid WHERE r.top_rid ${where}`,
    ),
    selections: db.prepare<[Arg, Arg], TreeSelectionRow>(
      `SELECT s.record_rid, s.datafield_id, s.option_id AS item_id, s.selected_at, 0 AS is_tag
         FROM records r JOIN option_selections s ON s.record_rid = r.rid WHERE r.top_rid ${where}
       UNION ALL
       SELECT t.record_rid, t.datafield_id, t.tag_id, t.selected_at, 1
         FROM records r JOIN tag_selections t ON t.record_rid = r.rid WHERE r.top_rid ${where}`,
    ),
    files: db.prepare<[Arg], FileRow>(
      `SELECT f.* FROM records r JOIN files f ON f.record_rid = r.rid WHERE r.top_rid ${where}
       ORDER BY f.display_order, f.rid`,
    ),
  };
}

/**
 * Whole record trees (records, values, option and tag selections, files) for record JSON, with a
 * fixed set of four queries whatever the number of records or fields. One tree binds its top
 * rid (`= ?`); several bind a JSON list of them.
 */
export const recordTrees = perConnection((db: Db) => {
  const one = statements(db, '= ?');
  const many = statements(db, IN_TOPS);
  return (topRids: readonly number[]) => {
    const single = topRids.length === 1;
    const s = single ? one : many;
    const arg = single ? topRids[0]! : JSON.stringify(topRids);
    return {
      /** By rid: a parent comes before its children. */
      records: () => s.records.all(arg),
      values: () => s.values.all(arg),
      selections: () => s.selections.all(arg, arg),
      /** By display order, then rid. */
      files: () => s.files.all(arg),
    };
  };
});
