import type { Database, Statement } from 'better-sqlite3';

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
export class PulledRecordStore {
  private readonly s: Record<'setMeta' | 'clearValues' | 'clearOptions' | 'clearTags' | 'clearFiles' | 'children', Statement>;

  constructor(db: Database) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      setMeta: p('UPDATE records SET create_date = ?, update_date = ?, create_auth = ?, public_date = ? WHERE rid = ?'),
      clearValues: p(`DELETE FROM field_values WHERE record_rid = ? AND datafield_id NOT IN ${REMOVED_FIELDS}`),
      clearOptions: p(`DELETE FROM option_selections WHERE record_rid = ? AND datafield_id NOT IN ${REMOVED_FIELDS}
                         AND option_id NOT IN (SELECT id FROM radio_options WHERE removed_at IS NOT NULL)`),
      clearTags: p(`DELETE FROM tag_selections WHERE record_rid = ? AND datafield_id NOT IN ${REMOVED_FIELDS}
                      AND tag_id NOT IN (SELECT id FROM tags WHERE removed_at IS NOT NULL)`),
      clearFiles: p(`DELETE FROM files WHERE record_rid = ? AND datafield_id NOT IN ${REMOVED_FIELDS}`),
      children: p('SELECT rid, uuid FROM records WHERE parent_rid = ? ORDER BY rid'),
    };
  }

  /** Empties a record (its own values, selections and file rows, not its children) and sets its metadata. */
  reset(rid: number, m: RecordMeta): void {
    this.s.setMeta.run(m.createDate, m.updateDate, m.createAuth, m.publicDate, rid);
    this.s.clearValues.run(rid);
    this.s.clearOptions.run(rid);
    this.s.clearTags.run(rid);
    this.s.clearFiles.run(rid);
  }

  children(rid: number): { rid: number; uuid: string }[] {
    return this.s.children.all(rid) as { rid: number; uuid: string }[];
  }
}
