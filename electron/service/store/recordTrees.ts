import type { Db } from './db.js';
import { perConnection } from './prepared.js';
import { RECORD_COLUMNS, type FileRow, type RecordRow, type SelectionRow, type ValueRow } from './rows.js';

/** An option (is_tag 0) or tag (is_tag 1) selection of a record in a tree. */
export type TreeSelectionRow = SelectionRow & { is_tag: number };

const IN_TOPS = 'IN (SELECT value FROM json_each(?))';

type Arg = number | string;
/** A field instance as read: its dates and author are NULL where they equal its record's. */
type ValueTuple = [number, number, ValueRow['value'], string | null, string | null, string | null, number];
type SelectionTuple = [number, number, number, string, number];

// Values and selections are most of a page's rows (1,400 and 700 for 100 synthetic records):
// read as arrays or JSON, not objects with named columns, and without the instance dates that
// repeat the record's, they cost about half as much to bring into JS.
function statements(db: Db, where: string) {
  return {
    records: db.prepare<[Arg], RecordRow>(`SELECT ${RECORD_COLUMNS} FROM records WHERE top_rid ${where} ORDER BY rid`),
    // One JSON text for all the rows: V8 parses it faster than better-sqlite3 builds the rows.
    // JSON would round a REAL (SQLite prints 15 digits) and cannot hold a BLOB: those values
    // come from `exact`, run only when the page has one.
    values: db
      .prepare<[Arg], string>(
        `SELECT json_group_array(json_array(v.record_rid, v.datafield_id,
                  CASE WHEN typeof(v.value) IN ('real', 'blob') THEN NULL ELSE v.value END,
                  NULLIF(v.create_date, r.create_date), NULLIF(v.update_date, r.update_date),
                  NULLIF(v.create_auth, ''), typeof(v.value) IN ('real', 'blob')))
         FROM records r JOIN field_values v ON v.record_rid = r.rid WHERE r.top_rid ${where}`,
      )
      .pluck(),
    exact: db
      .prepare<[Arg], [number, number, ValueRow['value']]>(
        `SELECT v.record_rid, v.datafield_id, v.value
         FROM records r JOIN field_values v ON v.record_rid = r.rid
         WHERE r.top_rid ${where} AND typeof(v.value) IN ('real', 'blob')`,
      )
      .raw(true),
    selections: db
      .prepare<[Arg, Arg], SelectionTuple>(
        `SELECT s.record_rid, s.datafield_id, s.option_id, s.selected_at, 0
           FROM records r JOIN option_selections s ON s.record_rid = r.rid WHERE r.top_rid ${where}
         UNION ALL
         SELECT t.record_rid, t.datafield_id, t.tag_id, t.selected_at, 1
           FROM records r JOIN tag_selections t ON t.record_rid = r.rid WHERE r.top_rid ${where}`,
      )
      .raw(true),
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
    let rows: RecordRow[] | undefined;
    const records = () => (rows ??= s.records.all(arg));
    return {
      /** By rid: a parent comes before its children. */
      records,
      values: (): ValueRow[] => {
        const byRid = new Map(records().map((r) => [r.rid, r]));
        const out: ValueRow[] = [];
        let exact: Map<string, ValueRow['value']> | undefined;
        for (const [rid, fieldId, value, created, updated, auth, inexact] of JSON.parse(s.values.get(arg)!) as ValueTuple[]) {
          // Outside a transaction another process may commit between two statements.
          const r = byRid.get(rid);
          if (!r) continue;
          if (inexact) exact ??= new Map(s.exact.all(arg).map(([a, b, x]) => [`${a} ${b}`, x]));
          out.push({
            record_rid: rid,
            datafield_id: fieldId,
            value: inexact ? (exact!.get(`${rid} ${fieldId}`) ?? null) : value,
            create_date: created ?? r.create_date,
            update_date: updated ?? r.update_date,
            // Stored '' when it is the record's author (imports): valueColumns in rows.ts.
            create_auth: auth ?? r.create_auth,
          });
        }
        return out;
      },
      selections: (): TreeSelectionRow[] =>
        s.selections.all(arg, arg).map(([rid, fieldId, item, at, isTag]) => ({
          record_rid: rid,
          datafield_id: fieldId,
          item_id: item,
          selected_at: at,
          is_tag: isTag,
        })),
      /** By display order, then rid. */
      files: () => s.files.all(arg),
    };
  };
});
