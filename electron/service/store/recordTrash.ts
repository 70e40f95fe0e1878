import type { Db } from './db.js';
import { perConnection } from './prepared.js';
import { subtree } from './subtree.js';

/**
 * A deleted file's facts the export form lacks: [created_by, content_hash, source_href, mime]
 * (entries written before migration 021, and dataset trash entries before it kept them: the first two).
 */
export type KeptFile = [number | null, string | null] | [number | null, string | null, string | null, string | null];

/** A deleted record (top-level or child) as kept for a restore (the rules: domain/records/trash.ts). */
export interface RecordTrashRow {
  record_uuid: string;
  /** Its storage row (its place in the list), taken again on restore when still free. */
  rid: number;
  dataset_uuid: string;
  deleted_at: string;
  expires_at: string;
  deleted_by: number;
  /** The record tree in ODR export form (JSON). */
  snapshot: string;
  /** JSON: record uuid → created_by, over the tree. */
  creators: string;
  /** JSON: file uuid → [created_by, content_hash, source_href, mime], over the tree (before migration 021: the first two). */
  files: string;
  /** JSON: values and selections under removed fields, options and tags (the snapshot hides them). */
  hidden: string;
  /** A child record's parent (restored under it); null for a top-level record. */
  parent_uuid: string | null;
  /** The parent's name as the table shows it when the child was deleted. */
  parent_name: string | null;
  /** A child's top-level record's creator (who may edit the child); null for a top-level record. */
  top_created_by: number | null;
  /** JSON: a child's ancestors' uuids, nearest (its parent) first; null for a top-level record and before migration 022. */
  ancestors: string | null;
}

const SUBTREE = subtree('rid');

/** A trash entry as the Trash panel lists it (the snapshot reduced to what names it). */
export interface RecordTrashListRow {
  record_uuid: string;
  dataset_uuid: string;
  /** Null when the dataset is deleted too. */
  dataset_name: string | null;
  /** The snapshot's `record_name`, `internal_id` and own fields (JSON): what shared/recordName.ts names it by. */
  record_name: string | null;
  internal_id: string | null;
  fields: string;
  deleted_at: string;
  expires_at: string;
  /** Email of who deleted it ('' when that user is gone). */
  deleted_by: string;
  /** JSON: record uuid → created_by (the restore rule needs the top record's creator). */
  creators: string;
  parent_uuid: string | null;
  parent_name: string | null;
  top_created_by: number | null;
}

/** What deleting a record to its trash and restoring it reads and writes. */
export const recordTrashStore = perConnection((db: Db) => {
  const s = {
    creators: db.prepare<[number], { uuid: string; created_by: number | null }>(
      `${SUBTREE} SELECT r.uuid, r.created_by FROM records r JOIN sub ON r.rid = sub.rid`,
    ),
    files: db.prepare<
      [number],
      { uuid: string; created_by: number | null; content_hash: string | null; source_href: string | null; mime: string | null }
    >(`${SUBTREE} SELECT f.uuid, f.created_by, f.content_hash, f.source_href, f.mime FROM files f JOIN sub ON f.record_rid = sub.rid`),
    put: db.prepare<
      [
        string,
        number,
        string,
        string,
        string,
        number,
        string,
        string,
        string,
        string,
        string | null,
        string | null,
        number | null,
        string | null,
      ]
    >(
      `INSERT INTO record_trash (record_uuid, rid, dataset_uuid, deleted_at, expires_at, deleted_by, snapshot, creators, files, hidden,
         parent_uuid, parent_name, top_created_by, ancestors)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    lineage: db
      .prepare<[number], string>(
        `WITH RECURSIVE up(rid, parent_rid, depth) AS (SELECT rid, parent_rid, 0 FROM records WHERE rid = ?
         UNION ALL SELECT r.rid, r.parent_rid, up.depth + 1 FROM records r JOIN up ON r.rid = up.parent_rid)
       SELECT r.uuid FROM up JOIN records r ON r.rid = up.rid ORDER BY up.depth`,
      )
      .pluck(),
    // What names a record (shared/recordName.ts): its name field's value and its own values by field.
    nameOf: db
      .prepare<[number], string>(
        `SELECT CAST(COALESCE(NULLIF(v.value, ''), r.internal_id) AS TEXT) FROM records r JOIN datatypes d ON d.id = r.datatype_id
         LEFT JOIN field_values v ON v.record_rid = r.rid AND v.datafield_id = d.name_field_id WHERE r.rid = ?`,
      )
      .pluck(),
    valuesOf: db.prepare<[number], { field_uuid: string; value: string | number | null }>(
      `SELECT f.uuid AS field_uuid, v.value FROM field_values v JOIN datafields f ON f.id = v.datafield_id
       WHERE v.record_rid = ? AND f.removed_at IS NULL`,
    ),
    hidden: db
      .prepare<[number], string>(
        `${SUBTREE} SELECT json_object(
         'values', (SELECT json_group_array(json_array(r.uuid, v.datafield_id, v.value, v.create_date, v.update_date, v.create_auth))
           FROM field_values v JOIN sub ON v.record_rid = sub.rid JOIN records r ON r.rid = v.record_rid
           JOIN datafields f ON f.id = v.datafield_id WHERE f.removed_at IS NOT NULL),
         'options', (SELECT json_group_array(json_array(r.uuid, s.option_id, s.selected_at))
           FROM option_selections s JOIN sub ON s.record_rid = sub.rid JOIN records r ON r.rid = s.record_rid
           JOIN radio_options o ON o.id = s.option_id JOIN datafields f ON f.id = s.datafield_id
           WHERE o.removed_at IS NOT NULL OR f.removed_at IS NOT NULL),
         'tags', (SELECT json_group_array(json_array(r.uuid, s.tag_id, s.selected_at))
           FROM tag_selections s JOIN sub ON s.record_rid = sub.rid JOIN records r ON r.rid = s.record_rid
           JOIN tags t ON t.id = s.tag_id JOIN datafields f ON f.id = s.datafield_id
           WHERE t.removed_at IS NOT NULL OR f.removed_at IS NOT NULL))`,
      )
      .pluck(),
    // Put back only where the record and the removed row are still there.
    putValues: db.prepare<[string]>(
      `INSERT OR IGNORE INTO field_values (record_rid, datafield_id, value, create_date, update_date, create_auth)
       SELECT r.rid, f.id, j.value ->> 2, j.value ->> 3, j.value ->> 4, j.value ->> 5
       FROM json_each(?, '$.values') j JOIN records r ON r.uuid = j.value ->> 0 JOIN datafields f ON f.id = j.value ->> 1`,
    ),
    putOptions: db.prepare<[string]>(
      `INSERT OR IGNORE INTO option_selections (record_rid, option_id, datafield_id, selected_at)
       SELECT r.rid, o.id, o.datafield_id, j.value ->> 2
       FROM json_each(?, '$.options') j JOIN records r ON r.uuid = j.value ->> 0 JOIN radio_options o ON o.id = j.value ->> 1`,
    ),
    putTags: db.prepare<[string]>(
      `INSERT OR IGNORE INTO tag_selections (record_rid, tag_id, datafield_id, selected_at)
       SELECT r.rid, t.id, t.datafield_id, j.value ->> 2
       FROM json_each(?, '$.tags') j JOIN records r ON r.uuid = j.value ->> 0 JOIN tags t ON t.id = j.value ->> 1`,
    ),
    keepBlobs: db.prepare<[string, string]>(
      `INSERT OR IGNORE INTO record_trash_blobs (content_hash, record_uuid)
       SELECT DISTINCT json_extract(j.value, '$[1]'), ? FROM json_each(?) j WHERE json_extract(j.value, '$[1]') IS NOT NULL`,
    ),
    list: db.prepare<[string], RecordTrashListRow>(
      `SELECT t.record_uuid, t.dataset_uuid, d.name AS dataset_name,
         CAST(t.snapshot ->> '$.record_name' AS TEXT) AS record_name, CAST(t.snapshot ->> '$.internal_id' AS TEXT) AS internal_id,
         COALESCE(t.snapshot -> '$.fields', '[]') AS fields,
         t.deleted_at, t.expires_at, COALESCE(u.email, '') AS deleted_by, t.creators, t.parent_uuid, t.parent_name, t.top_created_by
       FROM record_trash t LEFT JOIN datatypes d ON d.uuid = t.dataset_uuid LEFT JOIN users u ON u.id = t.deleted_by
       WHERE t.expires_at > ? ORDER BY t.deleted_at DESC, t.record_uuid`,
    ),
    get: db.prepare<[string], RecordTrashRow>('SELECT * FROM record_trash WHERE record_uuid = ?'),
    remove: db.prepare<[string]>('DELETE FROM record_trash WHERE record_uuid = ?'),
    expired: db.prepare<[string], string>('SELECT record_uuid FROM record_trash WHERE expires_at <= ?').pluck(),
    blobsOf: db.prepare<[string], string>('SELECT content_hash FROM record_trash_blobs WHERE record_uuid = ?').pluck(),
    setCreators: db.prepare<[string]>('UPDATE records SET created_by = j.value FROM json_each(?) j WHERE records.uuid = j.key'),
    // Old entries kept no mime: the restored rows with bytes (the importer writes none) get it from
    // their names, as an upload does. Metadata-only files never had one.
    unknownMime: db.prepare<[string], { uuid: string; original_name: string }>(
      `SELECT f.uuid, f.original_name FROM files f JOIN json_each(?) j ON f.uuid = j.key
       WHERE json_array_length(j.value) <= 3 AND f.mime IS NULL AND f.content_hash IS NOT NULL`,
    ),
    setMime: db.prepare<[string, string]>('UPDATE files SET mime = ? WHERE uuid = ?'),
    setFiles: db.prepare<[string]>(
      `UPDATE files SET created_by = json_extract(j.value, '$[0]'), content_hash = json_extract(j.value, '$[1]'),
         source_href = CASE WHEN json_array_length(j.value) > 2 THEN json_extract(j.value, '$[2]') ELSE files.source_href END,
         mime = CASE WHEN json_array_length(j.value) > 3 THEN json_extract(j.value, '$[3]') ELSE files.mime END
       FROM json_each(?) j WHERE files.uuid = j.key`,
    ),
  };
  return {
    /** Record uuid → creator over the tree under `rid` (itself included). */
    creators: (rid: number) => Object.fromEntries(s.creators.all(rid).map((r) => [r.uuid, r.created_by])),
    /** File uuid → [creator, content hash, source href, mime] over the tree under `rid` (the snapshot has neither: its href is rendered). */
    files: (rid: number): Record<string, KeptFile> =>
      Object.fromEntries(s.files.all(rid).map((f) => [f.uuid, [f.created_by, f.content_hash, f.source_href, f.mime]])),
    /** Keeps a deleted record (a second delete of the same uuid, after a restore, replaces it) and holds its files' bytes. */
    put: (row: RecordTrashRow) => {
      s.remove.run(row.record_uuid);
      s.put.run(
        row.record_uuid,
        row.rid,
        row.dataset_uuid,
        row.deleted_at,
        row.expires_at,
        row.deleted_by,
        row.snapshot,
        row.creators,
        row.files,
        row.hidden,
        row.parent_uuid,
        row.parent_name,
        row.top_created_by,
        row.ancestors,
      );
      s.keepBlobs.run(row.record_uuid, row.files);
    },
    get: (uuid: string) => s.get.get(uuid),
    /** The uuids of the record `rid` and its ancestors, itself first. */
    lineage: (rid: number) => s.lineage.all(rid),
    /** A record's `record_name` as the service renders it (its name field's value, else its id). */
    nameOf: (rid: number) => s.nameOf.get(rid) ?? '',
    /** A record's own values (not its children's) by field uuid, under fields not removed. */
    valuesOf: (rid: number) => s.valuesOf.all(rid),
    /** Every entry not expired at `now`, newest first (who may see which: domain/records/trash.ts). */
    list: (now: string) => s.list.all(now),
    /** Forgets an entry (restored or expired); its bytes' hold goes with it (ON DELETE CASCADE). */
    remove: (uuid: string) => void s.remove.run(uuid),
    /** Entries whose time is up at `now`. */
    expired: (now: string) => s.expired.all(now),
    /** The content hashes an entry holds. */
    blobsOf: (uuid: string) => s.blobsOf.all(uuid),
    /** Values and selections under removed fields, options and tags over the tree under `rid` (JSON). */
    hidden: (rid: number) => s.hidden.get(rid)!,
    /**
     * After a restore by import: record and file creators, file bytes' hashes, hrefs and mime
     * types as they were (`files`: JSON of KeptFile by file uuid); where an old entry kept no
     * mime, `mimeOf` names it from the file name.
     */
    restoreOwnership: (creators: string, files: string, mimeOf: (name: string) => string | undefined) => {
      s.setCreators.run(creators);
      s.setFiles.run(files);
      for (const f of s.unknownMime.all(files)) {
        const mime = mimeOf(f.original_name);
        if (mime) s.setMime.run(mime, f.uuid);
      }
    },
    /** After a restore by import: the hidden values and selections, where their rows still are. */
    restoreHidden: (hidden: string) => {
      s.putValues.run(hidden);
      s.putOptions.run(hidden);
      s.putTags.run(hidden);
    },
  };
});
