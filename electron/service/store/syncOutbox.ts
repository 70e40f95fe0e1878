import type { Db } from './db.js';
import { nextRowIdSql } from './newIds.js';
import { perConnection } from './prepared.js';
import { subtree } from './subtree.js';
import type { OpName } from './syncState.js';

/** A local change-log entry, as the outbox collector reads it. */
export interface LocalChangeRow {
  seq: number;
  op: string;
  dataset_uuid: string | null;
  record_uuid: string | null;
  top_record_uuid: string | null;
  field_uuid: string | null;
  item_uuid: string | null;
  old: string | null;
  new: string | null;
}

export interface OutboxEntry {
  dataset: string;
  record: string;
  top: string;
  op: OpName;
  field: string;
  item: string;
  /** JSON, or null. */
  payload: string | null;
  at: string;
}

/** A record of an imported tree, parents first. */
export interface TreeRecordRow {
  uuid: string;
  parent_uuid: string | null;
  database_uuid: string;
}

// A record's tree, top-level or child: itself and its descendants.
const SUBTREE = subtree('uuid');

/** Filling `sync_outbox` from the change log (the rules are sync/outbox.ts's). */
export const syncOutbox = perConnection((db: Db) => {
  const s = {
    localChanges: db.prepare<[number, number], LocalChangeRow>(
      `SELECT seq, op, dataset_uuid, record_uuid, top_record_uuid, field_uuid, item_uuid, old, new FROM change_log
       WHERE seq > ? AND origin = 'local' ORDER BY seq LIMIT ?`,
    ),
    upsert: db.prepare<[string, string, string, string, string, string, string | null, string]>(
      `INSERT INTO sync_outbox (id, dataset_uuid, record_uuid, top_record_uuid, op, field_uuid, item_uuid, payload, created)
       VALUES (${nextRowIdSql('sync_outbox')}, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (record_uuid, op, field_uuid, item_uuid) WHERE state = 'pending'
       DO UPDATE SET payload = excluded.payload, attempts = 0, last_error = NULL, rev = rev + 1`,
    ),
    // A newer edit of the same value, option or public date replaces a refused one: it leaves
    // "needs attention" and a pull no longer writes it back (sync/pull.ts keepRefused).
    closeRefused: db.prepare<[string, string, string, string]>(
      `UPDATE sync_outbox SET state = 'done' WHERE record_uuid = ? AND op = ? AND field_uuid = ? AND item_uuid = ?
         AND state = 'parked' AND op IN ('value', 'option', 'public')`,
    ),
    pendingCreate: db
      .prepare<[string], number>(
        `SELECT id FROM sync_outbox WHERE record_uuid = ? AND op IN ('create', 'create_child') AND state = 'pending'`,
      )
      .pluck(),
    dropUndoneDelete: db.prepare<[string]>(
      `DELETE FROM sync_outbox WHERE record_uuid = ? AND op = 'delete' AND state IN ('pending', 'parked', 'conflict')`,
    ),
    forgetRecords: db.prepare<[string]>(
      `${SUBTREE} DELETE FROM sync_id_map WHERE local_uuid IN (SELECT r.uuid FROM records r JOIN sub ON r.rid = sub.rid)`,
    ),
    forgetFiles: db.prepare<[string]>(
      `${SUBTREE} DELETE FROM sync_file_map WHERE local_uuid IN (SELECT f.uuid FROM files f JOIN sub ON f.record_rid = sub.rid)`,
    ),
    pendingUpload: db
      .prepare<[string], number>(`SELECT id FROM sync_outbox WHERE item_uuid = ? AND op = 'file_upload' AND state = 'pending'`)
      .pluck(),
    dropFile: db.prepare<[string]>(`DELETE FROM sync_outbox WHERE item_uuid = ? AND op LIKE 'file\\_%' ESCAPE '\\' AND state = 'pending'`),
    synced: db.prepare<[], string>('SELECT DISTINCT dataset_uuid FROM sync_datasets').pluck(),
    tree: db.prepare<[string], TreeRecordRow>(
      `${SUBTREE} SELECT r.uuid, p.uuid AS parent_uuid, d.uuid AS database_uuid FROM sub
         JOIN records r ON r.rid = sub.rid JOIN datatypes d ON d.id = r.datatype_id
         LEFT JOIN records p ON p.rid = r.parent_rid
       ORDER BY r.rid`,
    ),
    // Known to a server: created from here (mapped), or listed in its top-level record's last
    // server copy (pulled records keep the server's uuids).
    known: db
      .prepare<{ uuid: string; top: string; needle: string }, number>(
        `SELECT EXISTS (SELECT 1 FROM sync_id_map WHERE local_uuid = :uuid) OR EXISTS (SELECT 1 FROM sync_base
           WHERE remote_uuid = COALESCE((SELECT remote_uuid FROM sync_id_map WHERE local_uuid = :top AND state = 'bound'), :top)
             AND instr(json, :needle) > 0)`,
      )
      .pluck(),
    // Descendants' operations are filed under the top-level record, not under the record itself.
    dropTree: db.prepare<[string, string]>(
      `${SUBTREE} DELETE FROM sync_outbox WHERE state = 'pending'
         AND (top_record_uuid = ? OR record_uuid IN (SELECT r.uuid FROM records r JOIN sub ON r.rid = sub.rid))`,
    ),
    dropDeleted: db.prepare<[string, string]>(
      `DELETE FROM sync_outbox WHERE state = 'pending' AND (top_record_uuid = ? OR record_uuid IN (SELECT value FROM json_each(?)))`,
    ),
  };
  return {
    /** Local edits after `seq`, oldest first, at most `limit`. */
    localChanges: (seq: number, limit: number) => s.localChanges.all(seq, limit),
    /** Adds an operation; a pending one for the same target takes the new payload, a refused one is closed. */
    upsert: (e: OutboxEntry) => {
      s.closeRefused.run(e.record, e.op, e.field, e.item);
      s.upsert.run(e.dataset, e.record, e.top, e.op, e.field, e.item, e.payload, e.at);
    },
    hasPendingCreate: (record: string) => s.pendingCreate.get(record) !== undefined,
    /** Drops a record's delete that is not done (waiting, or refused); whether there was one. */
    dropUndoneDelete: (record: string) => s.dropUndoneDelete.run(record).changes > 0,
    /** Forgets which server records and files a record's tree was bound to: the server deleted them. */
    forgetRemote: (record: string) => {
      s.forgetRecords.run(record);
      s.forgetFiles.run(record);
    },
    hasPendingUpload: (file: string) => s.pendingUpload.get(file) !== undefined,
    /** Every dataset synced with some remote. */
    syncedDatasets: () => new Set(s.synced.all()),
    /** The records of a record's tree (itself included), parents before children. */
    tree: (record: string) => s.tree.all(record),
    /** Whether a server knows the record (see `known`). */
    known: (uuid: string, top: string) => s.known.get({ uuid, top, needle: `"record_uuid":"${uuid}"` }) === 1,
    /** Drops the pending operations of one file. */
    dropFile: (file: string) => void s.dropFile.run(file),
    /** Drops the pending operations of a record here and of its descendants. */
    dropTree: (record: string) => void s.dropTree.run(record, record),
    /**
     * Drops the pending operations of a deleted record (no longer here to walk): `tree` is its
     * uuid and its descendants', from the delete's snapshot.
     */
    dropDeleted: (record: string, tree: string[]) => void s.dropDeleted.run(record, JSON.stringify(tree)),
  };
});
