import type { Db } from './db.js';
import { multiRow, perConnection } from './prepared.js';
import { NEXT_IDS_SQL } from './newIds.js';
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

/**
 * New top-level records with their field data, gathered and then written with multi-row INSERTs.
 * Field rows are kept as the INSERTs' flat parameters: tuples flattened at write time cost a fifth
 * of a 50,000-row CSV import's CPU (Array.prototype.flat) and a tenth more in the collector.
 */
export interface NewRecordsBatch {
  records: NewTopRecord[];
  /** A field instance (value null for option and tag fields). */
  value: (rid: number, fieldId: number, value: string | number | null, at: string, auth: string) => void;
  option: (rid: number, optionId: number, fieldId: number, at: string) => void;
  tag: (rid: number, tagId: number, fieldId: number, at: string) => void;
  /** record_rid, datafield_id, value, create_date, update_date, create_auth per instance */
  readonly values: unknown[];
  /** record_rid, option_id, datafield_id, selected_at per selection */
  readonly options: unknown[];
  /** record_rid, tag_id, datafield_id, selected_at per selection */
  readonly tags: unknown[];
}

export const emptyBatch = (): NewRecordsBatch => {
  const values: unknown[] = [];
  const options: unknown[] = [];
  const tags: unknown[] = [];
  return {
    records: [],
    values,
    options,
    tags,
    value: (rid, fieldId, value, at, auth) => void values.push(rid, fieldId, value, at, at, auth),
    option: (rid, optionId, fieldId, at) => void options.push(rid, optionId, fieldId, at),
    tag: (rid, tagId, fieldId, at) => void tags.push(rid, tagId, fieldId, at),
  };
};

/**
 * Bulk creation of new top-level records (the CSV import's writer). Ids are handed out from one
 * read per transaction instead of per row (newIds.ts, the per-record insert's rule too): callers hold the write transaction, so no other
 * writer can take them in between.
 */
export const newRecordsStore = perConnection((db: Db) => {
  const nextIds = db.prepare<[], { rid: number; internal_id: number }>(NEXT_IDS_SQL);
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
      const records: unknown[] = [];
      for (const r of b.records)
        records.push(r.rid, r.internalId, r.uuid, r.datatypeId, null, r.rid, r.createdBy, r.created, r.created, r.createAuth, r.publicDate);
      insRecords(records);
      insValues(b.values);
      selections.options(b.options);
      selections.tags(b.tags);
    },
  };
});
