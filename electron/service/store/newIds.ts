// The one rule for an id this database makes in every table whose ids are shown or remembered:
// above every id a row has now and above the floor a delete leaves (migrations/025_record_id_floor.ts,
// 026_file_id_floor.ts, 027_id_floors.ts), so an id made here never goes to a second row. Used by
// every INSERT into these tables; read inside the write transaction that uses them.
// An id an import or a sync pull brings (the source's identity: a record pulled from a lab server
// shows the server's ID) is kept instead when no row holds it now and no other row gave it up
// (idFromElsewhereFreeSql, migrations/028_retired_ids.ts); else it takes the next one.
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

/** Tables whose ids may come from elsewhere (an export, the server), retired by a delete (028). */
export type OwnedTable = 'records' | 'files' | 'datatypes' | 'datafields' | 'radio_options' | 'tags';

/**
 * A SELECT of 1 if `@id`, brought by an import or a pull for the row `@owner` (its uuid; an
 * option's or tag's `fieldId/uuid`), may be taken: no row holds it now, and no other row gave it up.
 */
export const idFromElsewhereFreeSql = (table: OwnedTable, column: 'id' | 'internal_id' = 'id') =>
  `SELECT NOT EXISTS (SELECT 1 FROM ${table} WHERE ${column} = @id)
      AND NOT EXISTS (SELECT 1 FROM retired_ids WHERE tbl = '${table}' AND id = @id AND owner <> @owner)`;

/** The owner key of an option or tag in retired_ids (028). */
export const itemOwner = (fieldId: number, uuid: string) => `${fieldId}/${uuid}`;

/** Parameters of idFromElsewhereFreeSql. */
export interface IdFromElsewhere {
  id: number;
  owner: string;
}
