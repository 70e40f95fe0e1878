import type { Db } from './db.js';
import { perConnection } from './prepared.js';

// What an export of a record list reads per batch of top-level records, set-based: the stored
// values, the selected option and tag names, and the original files of the chosen fields.
// Rids and field ids travel as JSON arrays (one prepared statement whatever the batch size).

export interface CellValueRow {
  record_rid: number;
  datafield_id: number;
  value: string | number | null;
}
export interface CellNameRow {
  record_rid: number;
  datafield_id: number;
  name: string;
}
export interface CellFileRow {
  record_rid: number;
  datafield_id: number;
  rid: number;
  original_name: string;
  content_hash: string | null;
  public_date: string;
  created_by: number | null;
}

export interface ExportCellsRepository {
  values(rids: number[], fieldIds: number[]): CellValueRow[];
  options(rids: number[], fieldIds: number[]): CellNameRow[];
  tags(rids: number[], fieldIds: number[]): CellNameRow[];
  /** Original files (no thumbnails), in their display order. */
  files(rids: number[], fieldIds: number[]): CellFileRow[];
}

const IN_RIDS = 'record_rid IN (SELECT value FROM json_each(?))';
const IN_FIELDS = 'datafield_id IN (SELECT value FROM json_each(?))';

export const exportCellsRepository = perConnection((db: Db): ExportCellsRepository => {
  type Args = [string, string];
  const stmts = {
    values: db.prepare<Args, CellValueRow>(`SELECT record_rid, datafield_id, value FROM field_values WHERE ${IN_RIDS} AND ${IN_FIELDS}`),
    options: db.prepare<Args, CellNameRow>(
      `SELECT s.record_rid, s.datafield_id, o.name FROM option_selections s JOIN radio_options o ON o.id = s.option_id
       WHERE s.${IN_RIDS} AND s.${IN_FIELDS} ORDER BY s.record_rid, o.display_order, o.id`,
    ),
    tags: db.prepare<Args, CellNameRow>(
      `SELECT s.record_rid, s.datafield_id, t.name FROM tag_selections s JOIN tags t ON t.id = s.tag_id
       WHERE s.${IN_RIDS} AND s.${IN_FIELDS} ORDER BY s.record_rid, t.display_order, t.id`,
    ),
    files: db.prepare<Args, CellFileRow>(
      `SELECT record_rid, datafield_id, rid, original_name, content_hash, public_date, created_by FROM files
       WHERE ${IN_RIDS} AND ${IN_FIELDS} AND parent_rid IS NULL ORDER BY record_rid, display_order, rid`,
    ),
  };
  const args = (rids: number[], fieldIds: number[]): Args => [JSON.stringify(rids), JSON.stringify(fieldIds)];
  return {
    values: (r, f) => (f.length ? stmts.values.all(...args(r, f)) : []),
    options: (r, f) => (f.length ? stmts.options.all(...args(r, f)) : []),
    tags: (r, f) => (f.length ? stmts.tags.all(...args(r, f)) : []),
    files: (r, f) => (f.length ? stmts.files.all(...args(r, f)) : []),
  };
});
