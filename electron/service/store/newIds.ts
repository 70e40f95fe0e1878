// The one rule for a new row's rid and internal id in `records` and `files`: above every id a row
// has now and above the floor a delete leaves (migrations/025_record_id_floor.ts and
// 026_file_id_floor.ts), so a deleted row's ids are never handed to another. Used by every
// INSERT into either table; read inside the write transaction that uses them.
type Table = 'records' | 'files';
const FLOOR: Record<Table, string> = { records: 'record_id_floor', files: 'file_id_floor' };

/** An SQL expression: the next `column` of `table`, for a SELECT or an INSERT's VALUES. */
export const nextIdSql = (table: Table, column: 'rid' | 'internal_id') =>
  `(max(COALESCE((SELECT MAX(${column}) FROM ${table}), 0), (SELECT ${column} FROM ${FLOOR[table]})) + 1)`;

export const NEXT_RID_SQL = `SELECT ${nextIdSql('records', 'rid')}`;
export const NEXT_INTERNAL_ID_SQL = `SELECT ${nextIdSql('records', 'internal_id')}`;
export const NEXT_IDS_SQL = `SELECT ${nextIdSql('records', 'rid')} AS rid, ${nextIdSql('records', 'internal_id')} AS internal_id`;
export const NEXT_FILE_ID_SQL = `SELECT ${nextIdSql('files', 'internal_id')}`;
