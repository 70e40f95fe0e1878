import type { Db } from './db.js';
import { multiRow, perConnection } from './prepared.js';

/**
 * Multi-row inserts of option and tag selections, shared by the bulk writers (CSV import's new
 * records and the record importer). OR IGNORE: a selection already made stays as it was.
 * Flat parameters per row: record_rid, option_id | tag_id, datafield_id, selected_at.
 */
export const selectionInserts = perConnection((db: Db) => ({
  options: multiRow(db, 'INSERT OR IGNORE INTO option_selections (record_rid, option_id, datafield_id, selected_at)', 4),
  tags: multiRow(db, 'INSERT OR IGNORE INTO tag_selections (record_rid, tag_id, datafield_id, selected_at)', 4),
}));
