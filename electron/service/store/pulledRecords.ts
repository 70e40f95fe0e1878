import type { Db } from './db.js';
import { perConnection } from './prepared.js';

export interface RecordMeta {
  createDate: string;
  updateDate: string;
  createAuth: string;
  publicDate: string;
}

const REMOVED_FIELDS = '(SELECT id FROM datafields WHERE removed_at IS NOT NULL)';

/**
 * A stored record overwritten in place by the server's copy (docs/sync.md §4): the row and its
 * rid stay, so the record keeps its place in every list; what it holds is cleared and written
 * again. Data under template parts the server removed is left as it is (kept, hidden).
 */
export const pulledRecordStore = perConnection((db: Db) => {
  const s = {
    setMeta: db.prepare<[string, string, string, string, number]>(
      'UPDATE records SET create_date = ?, update_date = ?, create_auth = ?, public_date = ? WHERE rid = ?',
    ),
    // A value kept under a removed field whose author is stored as '' ("its record's", rows.ts
    // valueColumns) gets its author written out before the record's changes under it.
    pinKeptAuthors: db.prepare<[number, number]>(`UPDATE field_values SET create_auth = (SELECT create_auth FROM records WHERE rid = ?)
                        WHERE record_rid = ? AND create_auth = '' AND datafield_id IN ${REMOVED_FIELDS}`),
    clearValues: db.prepare<[number]>(`DELETE FROM field_values WHERE record_rid = ? AND datafield_id NOT IN ${REMOVED_FIELDS}`),
    clearOptions: db.prepare<[number]>(`DELETE FROM option_selections WHERE record_rid = ? AND datafield_id NOT IN ${REMOVED_FIELDS}
                         AND option_id NOT IN (SELECT id FROM radio_options WHERE removed_at IS NOT NULL)`),
    clearTags: db.prepare<[number]>(`DELETE FROM tag_selections WHERE record_rid = ? AND datafield_id NOT IN ${REMOVED_FIELDS}
                      AND tag_id NOT IN (SELECT id FROM tags WHERE removed_at IS NOT NULL)`),
    clearFiles: db.prepare<[number]>(`DELETE FROM files WHERE record_rid = ? AND datafield_id NOT IN ${REMOVED_FIELDS}`),
    children: db.prepare<[number], { rid: number; uuid: string }>('SELECT rid, uuid FROM records WHERE parent_rid = ? ORDER BY rid'),
  };
  return {
    /** Empties a record (its own values, selections and file rows, not its children) and sets its metadata. */
    reset(rid: number, m: RecordMeta): void {
      s.pinKeptAuthors.run(rid, rid);
      s.setMeta.run(m.createDate, m.updateDate, m.createAuth, m.publicDate, rid);
      s.clearValues.run(rid);
      s.clearOptions.run(rid);
      s.clearTags.run(rid);
      s.clearFiles.run(rid);
    },
    children: (rid: number) => s.children.all(rid),
  };
});
