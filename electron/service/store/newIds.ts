// The one rule for an id this database makes in every table whose ids are shown or remembered:
// above every id a row has now and above the floor a delete leaves (migrations/025_record_id_floor.ts,
// 026_file_id_floor.ts, 027_id_floors.ts), so an id made here never goes to a second row. Used by
// every INSERT into these tables; read inside the write transaction that uses them.
// An id an import or a sync pull brings (the source's identity: a record pulled from a lab server
// shows the server's ID) is kept instead whenever no row holds it now, even if a deleted row here
// had it: the floor does not guard it. A later restore of that deleted row then takes a new id
// (records.ts insert, importRecords.ts insertFiles, syncFiles.ts insertPulled, wantedOrNextIdSql).
type Table = 'records' | 'files';
const FLOOR: Record<Table, string> = { records: 'record_id_floor', files: 'file_id_floor' };

/** An SQL expression: the next `column` of `table`, for a SELECT or an INSERT's VALUES. */
export const nextIdSql = (table: Table, column: 'rid' | 'internal_id') =>
  `(max(COALESCE((SELECT MAX(${column}) FROM ${table}), 0), (SELECT ${column} FROM ${FLOOR[table]})) + 1)`;

export const NEXT_RID_SQL = `SELECT ${nextIdSql('records', 'rid')}`;
export const NEXT_INTERNAL_ID_SQL = `SELECT ${nextIdSql('records', 'internal_id')}`;
export const NEXT_IDS_SQL = `SELECT ${nextIdSql('records', 'rid')} AS rid, ${nextIdSql('records', 'internal_id')} AS internal_id`;
export const NEXT_FILE_ID_SQL = `SELECT ${nextIdSql('files', 'internal_id')}`;

/** Tables whose `id` has its floor in `id_floor` (027). */
export type FlooredTable = 'datatypes' | 'datafields' | 'radio_options' | 'tags' | 'saved_searches' | 'sync_conflicts' | 'sync_outbox';

/** An SQL expression: the next `id` of `table`, for an INSERT's VALUES. */
export const nextRowIdSql = (table: FlooredTable) =>
  `(max(COALESCE((SELECT MAX(id) FROM ${table}), 0), (SELECT id FROM id_floor WHERE tbl = '${table}')) + 1)`;

/** The id an import brings when given (`?`: the caller checked no row holds it, deleted rows aside), else the next one. */
export const wantedOrNextIdSql = (table: FlooredTable) => `COALESCE(?, ${nextRowIdSql(table)})`;
