import type { Statement } from 'better-sqlite3';
import type { Ctx } from '../context.js';
import { RECORD_COLUMNS, type FileRow, type RecordRow, type ValueRow } from '../rows.js';

export interface NewRecord {
  uuid: string;
  internalId?: number;
  datatypeId: number;
  parent: RecordRow | null;
  createdBy: number | null;
  createDate: string;
  updateDate: string;
  createAuth: string;
  publicDate: string;
}

/** Prepared statements over records and their field data; no rules, only storage. */
export class RecordStore {
  private readonly s: Record<string, Statement>;

  constructor(ctx: Ctx) {
    const p = (sql: string) => ctx.db.prepare(sql);
    this.s = {
      byUuid: p(`SELECT ${RECORD_COLUMNS} FROM records WHERE uuid = ?`),
      byRid: p(`SELECT ${RECORD_COLUMNS} FROM records WHERE rid = ?`),
      nextInternalId: p('SELECT COALESCE(MAX(internal_id), 0) + 1 FROM records').pluck(),
      internalIdTaken: p('SELECT 1 FROM records WHERE internal_id = ?').pluck(),
      insert:
        p(`INSERT INTO records (internal_id, uuid, datatype_id, parent_rid, top_rid, created_by, create_date, update_date, create_auth, public_date)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      setTop: p('UPDATE records SET top_rid = rid WHERE rid = ?'),
      touch: p(`WITH RECURSIVE chain(rid) AS (
                  SELECT ? UNION ALL SELECT r.parent_rid FROM records r JOIN chain ON r.rid = chain.rid WHERE r.parent_rid IS NOT NULL)
                UPDATE records SET update_date = ? WHERE rid IN (SELECT rid FROM chain)`),
      setPublic: p('UPDATE records SET public_date = ? WHERE rid = ?'),
      delete: p('DELETE FROM records WHERE rid = ?'),
      getValue: p('SELECT * FROM field_values WHERE record_rid = ? AND datafield_id = ?'),
      upsertValue: p(`INSERT INTO field_values (record_rid, datafield_id, value, create_date, update_date, create_auth)
                      VALUES (?, ?, ?, ?, ?, ?)
                      ON CONFLICT (record_rid, datafield_id) DO UPDATE SET value = excluded.value,
                        update_date = excluded.update_date, create_auth = excluded.create_auth`),
      touchInstance: p(`INSERT INTO field_values (record_rid, datafield_id, value, create_date, update_date, create_auth)
                        VALUES (?, ?, NULL, ?, ?, ?)
                        ON CONFLICT (record_rid, datafield_id) DO UPDATE SET update_date = excluded.update_date, create_auth = excluded.create_auth`),
      // Selections of options and tags the server's template removed stay stored, untouched by writes.
      selectedOptions: p(`SELECT s.option_id FROM option_selections s JOIN radio_options o ON o.id = s.option_id
                          WHERE s.record_rid = ? AND s.datafield_id = ? AND o.removed_at IS NULL`).pluck(),
      selectOption: p('INSERT OR IGNORE INTO option_selections (record_rid, option_id, datafield_id, selected_at) VALUES (?, ?, ?, ?)'),
      unselectOption: p('DELETE FROM option_selections WHERE record_rid = ? AND option_id = ?'),
      selectedTags: p(`SELECT s.tag_id FROM tag_selections s JOIN tags t ON t.id = s.tag_id
                       WHERE s.record_rid = ? AND s.datafield_id = ? AND t.removed_at IS NULL`).pluck(),
      selectTag: p('INSERT OR IGNORE INTO tag_selections (record_rid, tag_id, datafield_id, selected_at) VALUES (?, ?, ?, ?)'),
      unselectTag: p('DELETE FROM tag_selections WHERE record_rid = ? AND tag_id = ?'),
      fileByUuid: p('SELECT * FROM files WHERE uuid = ?'),
      fileHashesUnder: p(`WITH RECURSIVE sub(rid) AS (SELECT ? UNION ALL SELECT r.rid FROM records r JOIN sub ON r.parent_rid = sub.rid)
                          SELECT DISTINCT f.content_hash FROM files f JOIN sub ON f.record_rid = sub.rid
                          WHERE f.content_hash IS NOT NULL`).pluck(),
    };
  }

  byUuid(uuid: string): RecordRow | undefined {
    return this.s.byUuid!.get(uuid) as RecordRow | undefined;
  }

  byRid(rid: number): RecordRow | undefined {
    return this.s.byRid!.get(rid) as RecordRow | undefined;
  }

  topOf(rec: RecordRow): RecordRow {
    return rec.parent_rid === null ? rec : this.byRid(rec.top_rid)!;
  }

  insert(n: NewRecord): RecordRow {
    const wanted = n.internalId;
    const internalId = wanted !== undefined && !this.s.internalIdTaken!.get(wanted) ? wanted : (this.s.nextInternalId!.get() as number);
    const info = this.s.insert!.run(
      internalId,
      n.uuid,
      n.datatypeId,
      n.parent?.rid ?? null,
      n.parent?.top_rid ?? 0,
      n.createdBy,
      n.createDate,
      n.updateDate,
      n.createAuth,
      n.publicDate,
    );
    const rid = Number(info.lastInsertRowid);
    if (!n.parent) this.s.setTop!.run(rid);
    return this.byRid(rid)!;
  }

  /** `_update_date` of a record and every ancestor (the real server bumps the whole chain). */
  touch(rid: number, at: string): void {
    this.s.touch!.run(rid, at);
  }

  setPublicDate(rid: number, date: string): void {
    this.s.setPublic!.run(date, rid);
  }

  delete(rid: number): void {
    this.s.delete!.run(rid);
  }

  getValue(rid: number, fieldId: number): ValueRow | undefined {
    return this.s.getValue!.get(rid, fieldId) as ValueRow | undefined;
  }

  /** Writes a scalar value; `createDate` only applies when the field instance is new. */
  upsertValue(rid: number, fieldId: number, value: string | number | null, at: string, auth: string, createDate = at): void {
    this.s.upsertValue!.run(rid, fieldId, value, createDate, at, auth);
  }

  /** Option, tag and file fields keep an instance row for their metadata (who/when last). */
  touchInstance(rid: number, fieldId: number, at: string, auth: string): void {
    this.s.touchInstance!.run(rid, fieldId, at, at, auth);
  }

  selectedOptions(rid: number, fieldId: number): number[] {
    return this.s.selectedOptions!.all(rid, fieldId) as number[];
  }

  selectOption(rid: number, fieldId: number, optionId: number, at: string): void {
    this.s.selectOption!.run(rid, optionId, fieldId, at);
  }

  unselectOption(rid: number, optionId: number): void {
    this.s.unselectOption!.run(rid, optionId);
  }

  selectedTags(rid: number, fieldId: number): number[] {
    return this.s.selectedTags!.all(rid, fieldId) as number[];
  }

  selectTag(rid: number, fieldId: number, tagId: number, at: string): void {
    this.s.selectTag!.run(rid, tagId, fieldId, at);
  }

  unselectTag(rid: number, tagId: number): void {
    this.s.unselectTag!.run(rid, tagId);
  }

  fileByUuid(uuid: string): FileRow | undefined {
    return this.s.fileByUuid!.get(uuid) as FileRow | undefined;
  }

  /** Content hashes referenced by a record and its descendants (orphan candidates after a delete). */
  fileHashesUnder(rid: number): string[] {
    return this.s.fileHashesUnder!.all(rid) as string[];
  }
}
