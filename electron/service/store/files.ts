import type { Db } from './db.js';
import { NEXT_FILE_ID_SQL, nextIdSql } from './newIds.js';
import { perConnection, shaped } from './prepared.js';
import type { FileRow } from './rows.js';

/** A new row of `files`: an original upload (parentRid null) or a derivative (a thumbnail) of one. */
export interface NewFileRow {
  uuid: string;
  recordRid: number;
  fieldId: number;
  isImage: boolean;
  parentRid: number | null;
  originalName: string;
  contentHash: string;
  fileSize: number;
  mime: string;
  width: number | null;
  height: number | null;
  displayOrder: number;
  quality: number;
  createdBy: number | null;
  createDate: string;
  createAuth: string;
  publicDate: string;
}

/** The metadata of a file that clients may change (POST /dataset/record/save). */
export type FileMeta = Partial<Pick<FileRow, 'create_date' | 'public_date' | 'quality' | 'display_order' | 'caption'>>;
const META_COLUMNS = new Set(['create_date', 'public_date', 'quality', 'display_order', 'caption']);

const IN_DATASETS = 'r.datatype_id IN (SELECT value FROM json_each(?))';

/** The `files` table: file and image rows (the bytes are in the content store, domain/files/blobStore.ts). */
export const fileStore = perConnection((db: Db) => {
  const s = {
    byRid: db.prepare<[number], FileRow>('SELECT * FROM files WHERE rid = ?'),
    family: db.prepare<[number, number], FileRow>('SELECT * FROM files WHERE rid = ? OR parent_rid = ?'),
    dropDerivatives: db.prepare<[number]>('DELETE FROM files WHERE parent_rid = ?'),
    drop: db.prepare<[number]>('DELETE FROM files WHERE rid = ?'),
    derivativeHashes: db.prepare<[number], string | null>('SELECT content_hash FROM files WHERE parent_rid = ?').pluck(),
    nextId: db.prepare<[], number>(NEXT_FILE_ID_SQL).pluck(),
    insert: db.prepare<
      [
        number,
        string,
        number,
        number,
        number,
        number | null,
        string,
        string,
        number,
        string,
        number | null,
        number | null,
        number,
        number,
        number | null,
        string,
        string,
        string,
      ],
      FileRow
    >(
      `INSERT INTO files (rid, internal_id, uuid, record_rid, datafield_id, is_image, parent_rid, original_name, content_hash, file_size, mime,
         width, height, display_order, quality, created_by, create_date, create_auth, public_date)
       VALUES (${nextIdSql('files', 'rid')}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
    // A deleted record's files keep their bytes while it can be restored (store/recordTrash.ts).
    referenced: db
      .prepare<[string, string], string>(
        `SELECT content_hash FROM files WHERE content_hash IN (SELECT value FROM json_each(?))
         UNION SELECT content_hash FROM record_trash_blobs WHERE content_hash IN (SELECT value FROM json_each(?))`,
      )
      .pluck(),
    storedBytes: db
      .prepare<[string], number>(
        `SELECT COALESCE(SUM(f.file_size), 0) FROM files f JOIN records r ON r.rid = f.record_rid
         WHERE ${IN_DATASETS} AND f.content_hash IS NOT NULL`,
      )
      .pluck(),
    originalImages: db.prepare<[string], FileRow>(
      `SELECT f.* FROM files f JOIN records r ON r.rid = f.record_rid
       WHERE ${IN_DATASETS} AND f.is_image = 1 AND f.parent_rid IS NULL AND f.content_hash IS NOT NULL
       ORDER BY f.rid`,
    ),
    uuidByInternalId: db.prepare<[number, number], string>('SELECT uuid FROM files WHERE internal_id = ? AND is_image = ?').pluck(),
    namesUnderTops: db
      .prepare<[string], string>(
        `SELECT f.original_name FROM files f JOIN records r ON r.rid = f.record_rid
         WHERE r.top_rid IN (SELECT value FROM json_each(?)) AND +f.parent_rid IS NULL ORDER BY r.top_rid, f.rid`,
      )
      .pluck(),
  };
  return {
    byRid: (rid: number) => s.byRid.get(rid),
    /** A file and its derivatives. */
    family: (rid: number) => s.family.all(rid, rid),
    /** Deletes a file and its derivatives. */
    deleteFamily: (rid: number) => {
      s.dropDerivatives.run(rid);
      s.drop.run(rid);
    },
    derivativeHashes: (rid: number) => s.derivativeHashes.all(rid),
    dropDerivatives: (rid: number) => void s.dropDerivatives.run(rid),
    /** Inserts a row with the next internal id. */
    insert: (f: NewFileRow): FileRow =>
      s.insert.get(
        s.nextId.get()!,
        f.uuid,
        f.recordRid,
        f.fieldId,
        f.isImage ? 1 : 0,
        f.parentRid,
        f.originalName,
        f.contentHash,
        f.fileSize,
        f.mime,
        f.width,
        f.height,
        f.displayOrder,
        f.quality,
        f.createdBy,
        f.createDate,
        f.createAuth,
        f.publicDate,
      )!,
    /** Sets the given metadata columns (one statement per set of columns). */
    setMeta: (rid: number, meta: FileMeta) => {
      const cols = Object.keys(meta).filter((k) => META_COLUMNS.has(k));
      if (!cols.length) return;
      const sql = `UPDATE files SET ${cols.map((k) => `${k} = ?`).join(', ')} WHERE rid = ?`;
      shaped(db)<unknown[], never>(sql).run(...cols.map((k) => meta[k as keyof FileMeta]), rid);
    },
    /** Of these hashes, those some file row, or a deleted record that can still be restored, points at. */
    referencedOf: (hashes: readonly string[]): Set<string> => {
      const json = JSON.stringify(hashes);
      return new Set(hashes.length ? s.referenced.all(json, json) : []);
    },
    /** Bytes stored for the files of these datasets (derivatives included). */
    storedBytes: (datasetIds: number[]) => s.storedBytes.get(JSON.stringify(datasetIds)) ?? 0,
    /** Original images of these datasets whose bytes are stored here. */
    originalImages: (datasetIds: number[]) => s.originalImages.all(JSON.stringify(datasetIds)),
    /** The uuid behind an old client's numeric file or image id. */
    uuidByInternalId: (id: number, image: boolean) => s.uuidByInternalId.get(id, image ? 1 : 0),
    /** Original names of the files under these top-level records, record by record. */
    namesUnderTops: (topRids: number[]) => s.namesUnderTops.all(JSON.stringify(topRids)),
  };
});
