import type { Db } from './db.js';
import { multiRow, perConnection } from './prepared.js';
import { selectionInserts } from './selectionInserts.js';

export interface NewTopRecord {
  rid: number;
  internalId: number;
  uuid: string;
  datatypeId: number;
  createdBy: number | null;
  created: string;
  createAuth: string;
  publicDate: string;
}

/** New top-level records with their field data, gathered and then written with multi-row INSERTs. */
export interface NewRecordsBatch {
  records: NewTopRecord[];
  /** record_rid, datafield_id, value, create_date, update_date, create_auth (value NULL for option and tag fields). */
  values: [number, number, string | number | null, string, string, string][];
  /** record_rid, option_id, datafield_id, selected_at */
  options: [number, number, number, string][];
  /** record_rid, tag_id, datafield_id, selected_at */
  tags: [number, number, number, string][];
}

export const emptyBatch = (): NewRecordsBatch => ({ records: [], values: [], options: [], tags: [] });

/**
 * Bulk creation of new top-level records (the CSV import's writer). Ids are handed out from one
 * MAX() per transaction instead of per row: callers hold the write transaction, so no other
 * writer can take them in between.
 */
export const newRecordsStore = perConnection((db: Db) => {
  const nextIds = db.prepare<[], { rid: number; internal_id: number }>(
    'SELECT COALESCE(MAX(rid), 0) + 1 AS rid, COALESCE(MAX(internal_id), 0) + 1 AS internal_id FROM records',
  );
  const insRecords = multiRow(
    db,
    'INSERT INTO records (rid, internal_id, uuid, datatype_id, parent_rid, top_rid, created_by, create_date, update_date, create_auth, public_date)',
    11,
  );
  const insValues = multiRow(db, 'INSERT INTO field_values (record_rid, datafield_id, value, create_date, update_date, create_auth)', 6);
  const selections = selectionInserts(db);
  return {
    /** The next free rid and internal id; call inside the write transaction that uses them. */
    nextIds: () => nextIds.get()!,
    write: (b: NewRecordsBatch) => {
      insRecords(
        b.records.flatMap((r) => [
          r.rid,
          r.internalId,
          r.uuid,
          r.datatypeId,
          null,
          r.rid,
          r.createdBy,
          r.created,
          r.created,
          r.createAuth,
          r.publicDate,
        ]),
      );
      insValues(b.values.flat());
      selections.options(b.options.flat());
      selections.tags(b.tags.flat());
    },
  };
});
