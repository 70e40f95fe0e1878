import type { Db } from './db.js';
import { perConnection } from './prepared.js';

/** Where a change came from: this user's edit, a sync pull, or an import (neither is pushed). */
export type ChangeOrigin = 'local' | 'sync' | 'import';

/** A row to append to `change_log`; old and new are JSON or null. */
export interface ChangeLogEntry {
  at: string;
  userId: number | null;
  op: string;
  datasetUuid: string | null;
  recordUuid: string | null;
  topRecordUuid: string | null;
  fieldUuid: string | null;
  itemUuid: string | null;
  old: string | null;
  new: string | null;
  origin: ChangeOrigin;
}

/** The append-only `change_log` table (its rules: domain/changeLog.ts). */
export const changeLogStore = perConnection((db: Db) => {
  const s = {
    insert: db.prepare<
      [
        string,
        number | null,
        string,
        string | null,
        string | null,
        string | null,
        string | null,
        string | null,
        string | null,
        string | null,
        string,
      ]
    >(
      `INSERT INTO change_log (at, user_id, op, dataset_uuid, record_uuid, top_record_uuid, field_uuid, item_uuid, old, new, origin)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    lastSeq: db.prepare<[], number>('SELECT COALESCE(MAX(seq), 0) FROM change_log').pluck(),
  };
  return {
    append: (e: ChangeLogEntry) =>
      void s.insert.run(
        e.at,
        e.userId,
        e.op,
        e.datasetUuid,
        e.recordUuid,
        e.topRecordUuid,
        e.fieldUuid,
        e.itemUuid,
        e.old,
        e.new,
        e.origin,
      ),
    /** The newest entry's sequence number (0 when empty): grows with every change. */
    lastSeq: () => s.lastSeq.get() ?? 0,
  };
});
