import type { Db } from './db.js';

import { idFromElsewhereFreeSql, NEXT_INTERNAL_ID_SQL, NEXT_RID_SQL, type IdFromElsewhere } from './newIds.js';
import { RECORD_COLUMNS, valueColumns, type FileRow, type RecordRow, type ValueRow } from './rows.js';
import { subtree } from './subtree.js';

export interface NewRecord {
  uuid: string;
  internalId?: number;
  /** The storage row (list order) it should have, when free: a restored record goes back in its place. */
  rid?: number;
  datatypeId: number;
  parent: RecordRow | null;
  createdBy: number | null;
  createDate: string;
  updateDate: string;
  createAuth: string;
  publicDate: string;
}

const statements = (db: Db) => ({
  byUuid: db.prepare<[string], RecordRow>(`SELECT ${RECORD_COLUMNS} FROM records WHERE uuid = ?`),
  byRid: db.prepare<[number], RecordRow>(`SELECT ${RECORD_COLUMNS} FROM records WHERE rid = ?`),
  nextInternalId: db.prepare<[], number>(NEXT_INTERNAL_ID_SQL).pluck(),
  internalIdFree: db.prepare<IdFromElsewhere, number>(idFromElsewhereFreeSql('records', 'internal_id')).pluck(),
  insert: db.prepare<
    [number | null, number, string, number, number | null, number, number | null, string, string, string, string]
  >(`INSERT INTO records (rid, internal_id, uuid, datatype_id, parent_rid, top_rid, created_by, create_date, update_date, create_auth, public_date)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  // Never left to SQLite (a NULL rid takes the largest plus one, a deleted newest record's), and
  // known before the INSERT so a top-level row is written with its top_rid; an UPDATE after the
  // INSERT rewrote the row and moved its records_by_top entry, a tenth of a record's import.
  nextRid: db.prepare<[], number>(NEXT_RID_SQL).pluck(),
  // One row by its key, its parent returned to climb on: a statement that may change several rows
  // (the recursive form touchMany uses) pays for a statement journal inside a savepoint, and every
  // group-committed write is one; a single write's chain is a row or two.
  touchOne: db.prepare<[string, number], number | null>('UPDATE records SET update_date = ? WHERE rid = ? RETURNING parent_rid').pluck(),
  // One statement for a whole set: inside a savepoint (group commit nests every mutation in one)
  // each multi-row UPDATE pays for a statement journal, ~100 µs, so per-record touches of a
  // 5,000-record batch cost seconds where this costs milliseconds.
  touchMany: db.prepare<[string, string]>(`WITH RECURSIVE chain(rid) AS (
              SELECT value FROM json_each(?) UNION SELECT r.parent_rid FROM records r JOIN chain ON r.rid = chain.rid WHERE r.parent_rid IS NOT NULL)
            UPDATE records SET update_date = ? WHERE rid IN (SELECT rid FROM chain)`),
  setPublic: db.prepare<[string, number]>('UPDATE records SET public_date = ? WHERE rid = ?'),
  // Never moves back: a change stamped with an earlier clock (a pull of an old delete) keeps the later one.
  stampTop: db.prepare<[string, number]>(
    `UPDATE dataset_counts SET changed_at = max(coalesce(changed_at, ''), ?)
     WHERE datatype_id = (SELECT datatype_id FROM records WHERE rid = ? AND parent_rid IS NULL)`,
  ),
  // A dataset restored without records has no count row yet: made here with its count, 0.
  stampDataset: db.prepare<[number, string]>(
    `INSERT INTO dataset_counts (datatype_id, n, changed_at) VALUES (?, 0, ?)
     ON CONFLICT (datatype_id) DO UPDATE SET changed_at = max(coalesce(changed_at, ''), excluded.changed_at)`,
  ),
  delete: db.prepare<[number]>('DELETE FROM records WHERE rid = ?'),
  getValue: db.prepare<[number, number], ValueRow>(
    `SELECT ${valueColumns('v', 'r')} FROM field_values v JOIN records r ON r.rid = v.record_rid
     WHERE v.record_rid = ? AND v.datafield_id = ?`,
  ),
  upsertValue: db.prepare<
    [number, number, string | number | null, string, string, string]
  >(`INSERT INTO field_values (record_rid, datafield_id, value, create_date, update_date, create_auth)
                  VALUES (?, ?, ?, ?, ?, ?)
                  ON CONFLICT (record_rid, datafield_id) DO UPDATE SET value = excluded.value,
                    update_date = excluded.update_date, create_auth = excluded.create_auth`),
  touchInstance: db.prepare<
    [number, number, string, string, string]
  >(`INSERT INTO field_values (record_rid, datafield_id, value, create_date, update_date, create_auth)
                    VALUES (?, ?, NULL, ?, ?, ?)
                    ON CONFLICT (record_rid, datafield_id) DO UPDATE SET update_date = excluded.update_date, create_auth = excluded.create_auth`),
  // Selections of options and tags the server's template removed stay stored, untouched by writes.
  selectedOptions: db
    .prepare<[number, number], number>(
      `SELECT s.option_id FROM option_selections s JOIN radio_options o ON o.id = s.option_id
       WHERE s.record_rid = ? AND s.datafield_id = ? AND o.removed_at IS NULL`,
    )
    .pluck(),
  selectOption: db.prepare<[number, number, number, string]>(
    'INSERT OR IGNORE INTO option_selections (record_rid, option_id, datafield_id, selected_at) VALUES (?, ?, ?, ?)',
  ),
  unselectOption: db.prepare<[number, number]>('DELETE FROM option_selections WHERE record_rid = ? AND option_id = ?'),
  selectedTags: db
    .prepare<[number, number], number>(
      `SELECT s.tag_id FROM tag_selections s JOIN tags t ON t.id = s.tag_id
       WHERE s.record_rid = ? AND s.datafield_id = ? AND t.removed_at IS NULL`,
    )
    .pluck(),
  selectTag: db.prepare<[number, number, number, string]>(
    'INSERT OR IGNORE INTO tag_selections (record_rid, tag_id, datafield_id, selected_at) VALUES (?, ?, ?, ?)',
  ),
  unselectTag: db.prepare<[number, number]>('DELETE FROM tag_selections WHERE record_rid = ? AND tag_id = ?'),
  fileByUuid: db.prepare<[string], FileRow>('SELECT * FROM files WHERE uuid = ?'),
  fileHashesUnder: db
    .prepare<[number], string>(
      `${subtree('rid')}
                      SELECT DISTINCT f.content_hash FROM files f JOIN sub ON f.record_rid = sub.rid
                      WHERE f.content_hash IS NOT NULL`,
    )
    .pluck(),
});

/** Prepared statements over records and their field data; no rules, only storage. */
export class RecordStore {
  private readonly s;

  constructor(db: Db) {
    this.s = statements(db);
  }

  byUuid(uuid: string): RecordRow | undefined {
    return this.s.byUuid.get(uuid);
  }

  byRid(rid: number): RecordRow | undefined {
    return this.s.byRid.get(rid);
  }

  topOf(rec: RecordRow): RecordRow {
    return rec.parent_rid === null ? rec : this.byRid(rec.top_rid)!;
  }

  insert(n: NewRecord): RecordRow {
    // A wanted internal id is the source's (an import's or a sync pull's: a record pulled from a
    // lab server shows the server's ID), kept when no row holds it now and no other record gave it
    // up (migrations/028_retired_ids.ts); a restore takes its own back unless a row holds it now.
    const wanted = n.internalId;
    const internalId =
      wanted !== undefined && this.s.internalIdFree.get({ id: wanted, owner: n.uuid }) ? wanted : this.s.nextInternalId.get()!;
    // A wanted rid (a restore's) is one this record had: the floor keeps it from any other record.
    const rid = n.rid !== undefined && !this.byRid(n.rid) ? n.rid : this.s.nextRid.get()!;
    this.s.insert.run(
      rid,
      internalId,
      n.uuid,
      n.datatypeId,
      n.parent?.rid ?? null,
      n.parent ? n.parent.top_rid : rid,
      n.createdBy,
      n.createDate,
      n.updateDate,
      n.createAuth,
      n.publicDate,
    );
    // The row as just written (reading it back cost a bulk pull a thirtieth of its time).
    return {
      rid,
      internal_id: internalId,
      uuid: n.uuid,
      datatype_id: n.datatypeId,
      parent_rid: n.parent?.rid ?? null,
      top_rid: n.parent ? n.parent.top_rid : rid,
      created_by: n.createdBy,
      create_date: n.createDate,
      update_date: n.updateDate,
      create_auth: n.createAuth,
      public_date: n.publicDate,
    };
  }

  /** `_update_date` of a record and every ancestor (the real server bumps the whole chain). */
  touch(rid: number, at: string): void {
    for (let r: number | null | undefined = rid; r != null;) r = this.s.touchOne.get(at, r);
  }

  /** `touch` for many records at once, in one statement. */
  touchMany(rids: readonly number[], at: string): void {
    if (rids.length) this.s.touchMany.run(JSON.stringify(rids), at);
  }

  setPublicDate(rid: number, date: string): void {
    this.s.setPublic.run(date, rid);
  }

  /**
   * Deletes a record and its descendants. A top-level record's delete is a change of its dataset
   * at `at` (its "last change" in the datasets list, which its remaining records' dates miss).
   */
  delete(rid: number, at: string): void {
    this.s.stampTop.run(at, rid);
    this.s.delete.run(rid);
  }

  /** A change of dataset `datatypeId` at `at` that no record's update date shows (a restore). */
  stampDatasetChange(datatypeId: number, at: string): void {
    this.s.stampDataset.run(datatypeId, at);
  }

  getValue(rid: number, fieldId: number): ValueRow | undefined {
    return this.s.getValue.get(rid, fieldId);
  }

  /** Writes a scalar value; `createDate` only applies when the field instance is new. */
  upsertValue(rid: number, fieldId: number, value: string | number | null, at: string, auth: string, createDate = at): void {
    this.s.upsertValue.run(rid, fieldId, value, createDate, at, auth);
  }

  /** Option, tag and file fields keep an instance row for their metadata (who/when last). */
  touchInstance(rid: number, fieldId: number, at: string, auth: string): void {
    this.s.touchInstance.run(rid, fieldId, at, at, auth);
  }

  selectedOptions(rid: number, fieldId: number): number[] {
    return this.s.selectedOptions.all(rid, fieldId);
  }

  selectOption(rid: number, fieldId: number, optionId: number, at: string): void {
    this.s.selectOption.run(rid, optionId, fieldId, at);
  }

  unselectOption(rid: number, optionId: number): void {
    this.s.unselectOption.run(rid, optionId);
  }

  selectedTags(rid: number, fieldId: number): number[] {
    return this.s.selectedTags.all(rid, fieldId);
  }

  selectTag(rid: number, fieldId: number, tagId: number, at: string): void {
    this.s.selectTag.run(rid, tagId, fieldId, at);
  }

  unselectTag(rid: number, tagId: number): void {
    this.s.unselectTag.run(rid, tagId);
  }

  fileByUuid(uuid: string): FileRow | undefined {
    return this.s.fileByUuid.get(uuid);
  }

  /** Content hashes referenced by a record and its descendants (orphan candidates after a delete). */
  fileHashesUnder(rid: number): string[] {
    return this.s.fileHashesUnder.all(rid);
  }
}
