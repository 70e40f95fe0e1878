import type { Db } from './db.js';
import { idFromElsewhereFreeSql, NEXT_FILE_ID_SQL, nextIdSql, nextRowIdSql, type IdFromElsewhere } from './newIds.js';
import { multiRow, perConnection } from './prepared.js';
import { selectionInserts } from './selectionInserts.js';

/**
 * A record tree's field instances and selections, gathered and written together: one statement
 * per table instead of one per value (the import's largest cost per record). The importer
 * flushes before anything reads or re-keys what is queued, and at the end of every tree.
 */
export interface RecordDataQueue {
  /** A field instance; its author is stored as '' when it is the record's (rows.ts valueColumns). */
  value: (
    rid: number,
    fieldId: number,
    value: string | number | null,
    created: string,
    updated: string,
    auth: string,
    recordAuth: string,
  ) => void;
  option: (rid: number, optionId: number, fieldId: number, selectedAt: string) => void;
  tag: (rid: number, tagId: number, fieldId: number, selectedAt: string) => void;
  flush: () => void;
  /** Forgets what is queued (the transaction it was for rolled back). */
  discard: () => void;
}

/**
 * Writes of exported records under their uuids and ids (domain/import/importRecords.ts): values,
 * selections, file metadata, datatypes and fields inferred from the records, and re-keying of
 * options and tags to the ids of the export (with foreign keys deferred to the commit).
 */
export const recordImportStatements = perConnection((db: Db) => {
  const insValues = multiRow(
    db,
    'INSERT OR REPLACE INTO field_values (record_rid, datafield_id, value, create_date, update_date, create_auth)',
    6,
  );
  const selections = selectionInserts(db);
  return {
    /** A new queue (one per importer: importers may be interleaved between trees). */
    queue: (): RecordDataQueue => {
      let values: unknown[] = [];
      let options: unknown[] = [];
      let tags: unknown[] = [];
      return {
        value: (rid, fieldId, value, created, updated, auth, recordAuth) =>
          void values.push(rid, fieldId, value, created, updated, auth === recordAuth ? '' : auth),
        option: (rid, optionId, fieldId, at) => void options.push(rid, optionId, fieldId, at),
        tag: (rid, tagId, fieldId, at) => void tags.push(rid, tagId, fieldId, at),
        flush: () => {
          // Emptied first: a failing insert leaves nothing queued for the next tree.
          const [v, o, t] = [values, options, tags];
          values = [];
          options = [];
          tags = [];
          if (v.length) insValues(v);
          if (o.length) selections.options(o);
          if (t.length) selections.tags(t);
        },
        discard: () => {
          values = [];
          options = [];
          tags = [];
        },
      };
    },
    fileExists: db.prepare<[string], number>('SELECT 1 FROM files WHERE uuid = ?').pluck(),
    // The export's file id is kept when no row holds it now and no other file gave it up (the
    // source's identity; docs/store.md "never handed out twice by this database").
    fileIdFree: db.prepare<IdFromElsewhere, number>(idFromElsewhereFreeSql('files', 'internal_id')).pluck(),
    nextFileId: db.prepare<[], number>(NEXT_FILE_ID_SQL).pluck(),
    insFile:
      db.prepare(`INSERT INTO files (rid, internal_id, uuid, record_rid, datafield_id, is_image, parent_rid, original_name, file_size,
                   width, height, caption, external_id, source_href, display_order, quality, created_by, create_date, create_auth, public_date)
                  VALUES (${nextIdSql('files', 'rid')}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    insDt: db.prepare(`INSERT INTO datatypes (id, uuid, parent_id, name, master_uuid, metadata_for_uuid, owner_id, display_order,
                 create_date, create_auth, public_date, updated_at)
                 VALUES (${nextRowIdSql('datatypes')}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    setMaster: db.prepare("UPDATE datatypes SET master_uuid = ? WHERE id = ? AND master_uuid = ''"),
    setNameField: db.prepare('UPDATE datatypes SET name_field_id = ? WHERE id = ? AND name_field_id IS NULL'),
    setFieldType: db.prepare('UPDATE datafields SET fieldtype = ? WHERE id = ?'),
    deferFks: db.prepare('PRAGMA defer_foreign_keys = ON'),
    optionIdFree: db.prepare<IdFromElsewhere, number>(idFromElsewhereFreeSql('radio_options')).pluck(),
    rekeyOption: db.prepare('UPDATE radio_options SET id = ? WHERE id = ?'),
    rekeyOptionSel: db.prepare('UPDATE option_selections SET option_id = ? WHERE option_id = ?'),
    tagIdFree: db.prepare<IdFromElsewhere, number>(idFromElsewhereFreeSql('tags')).pluck(),
    rekeyTag: db.prepare('UPDATE tags SET id = ? WHERE id = ?'),
    rekeyTagParent: db.prepare('UPDATE tags SET parent_id = ? WHERE parent_id = ?'),
    rekeyTagSel: db.prepare('UPDATE tag_selections SET tag_id = ? WHERE tag_id = ?'),
  };
});
