// The one rule for a new record's rid and internal id, shared by the per-record insert
// (records.ts) and the bulk writer (newRecords.ts): above every id a record has now and above the
// floor a delete leaves (migrations/025_record_id_floor.ts), so a deleted record's ids are never
// handed to another record. Read inside the write transaction that uses them.
const above = (column: 'rid' | 'internal_id') =>
  `max(COALESCE((SELECT MAX(${column}) FROM records), 0), (SELECT ${column} FROM record_id_floor)) + 1`;

export const NEXT_RID_SQL = `SELECT ${above('rid')}`;
export const NEXT_INTERNAL_ID_SQL = `SELECT ${above('internal_id')}`;
export const NEXT_IDS_SQL = `SELECT ${above('rid')} AS rid, ${above('internal_id')} AS internal_id`;
