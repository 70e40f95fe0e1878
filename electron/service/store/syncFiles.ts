import type { Database, Statement } from 'better-sqlite3';
import type { FileRow } from './rows.js';
import { idFromElsewhereFreeSql, NEXT_FILE_ID_SQL, nextIdSql } from './newIds.js';
import { perConnection } from './prepared.js';

// Files in sync (migration 006): the map from files uploaded here to the server's, the datasets
// whose files are kept offline, and the file rows sync reads and fills in (bytes fetched from the
// server, metadata the server changed). The only module that writes these with SQL.

export interface FileMapRow {
  local_uuid: string;
  remote_uuid: string | null;
  /** 'uploading': sent, answer not yet seen (a crash or lost answer leaves it so); 'bound'. */
  state: 'uploading' | 'bound';
  attempted_at: string | null;
  /** The server's files on the record's field before the upload: the new one is not among them. */
  known_before: string[];
}

/** A metadata-only file row as the server lists it (bytes come on first use). */
export interface PulledFile {
  uuid: string;
  internalId: number | null;
  recordRid: number;
  fieldId: number;
  isImage: boolean;
  parentRid: number | null;
  name: string;
  size: number | null;
  width: number | null;
  height: number | null;
  caption: string;
  href: string | null;
  displayOrder: number;
  quality: number;
  createdBy: number;
  createDate: string;
  createAuth: string;
  publicDate: string;
}

export interface FileMeta {
  public_date: string;
  quality: number;
  display_order: number;
}

export class SyncFileStore {
  private readonly cache = new Map<string, Statement>();

  constructor(private readonly db: Database) {}

  private q(sql: string): Statement {
    let st = this.cache.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.cache.set(sql, st);
    }
    return st;
  }

  // The file map

  mapRow(local: string): FileMapRow | undefined {
    const r = this.q('SELECT local_uuid, remote_uuid, state, attempted_at, known_before FROM sync_file_map WHERE local_uuid = ?').get(
      local,
    ) as (Omit<FileMapRow, 'known_before'> & { known_before: string | null }) | undefined;
    if (!r) return undefined;
    return { ...r, known_before: r.known_before ? (JSON.parse(r.known_before) as string[]) : [] };
  }

  /** The server's uuid of a local file: pulled files keep it; uploads map; null while in doubt. */
  remoteOf(local: string): string | null {
    const r = this.mapRow(local);
    if (!r) return local;
    return r.state === 'bound' ? r.remote_uuid : null;
  }

  localOf(remoteId: number, remote: string): string {
    return (
      (this.q("SELECT local_uuid FROM sync_file_map WHERE remote_id = ? AND remote_uuid = ? AND state = 'bound'")
        .pluck()
        .get(remoteId, remote) as string | undefined) ?? remote
    );
  }

  isMapped(remoteId: number, remote: string): boolean {
    return !!this.q('SELECT 1 FROM sync_file_map WHERE remote_id = ? AND remote_uuid = ?').get(remoteId, remote);
  }

  /** Durable before the upload is sent (see FileMapRow.state). */
  beginUpload(local: string, remoteId: number, knownBefore: string[]): void {
    this.q(
      `INSERT OR REPLACE INTO sync_file_map (local_uuid, remote_id, remote_uuid, state, attempted_at, known_before)
       VALUES (?, ?, NULL, 'uploading', ?, ?)`,
    ).run(local, remoteId, new Date().toISOString(), JSON.stringify(knownBefore));
  }

  bind(local: string, remoteId: number, remote: string): void {
    this.q(
      `INSERT OR REPLACE INTO sync_file_map (local_uuid, remote_id, remote_uuid, state, attempted_at, known_before)
       VALUES (?, ?, ?, 'bound', NULL, NULL)`,
    ).run(local, remoteId, remote);
  }

  /** The local file is sent again as a new upload (a "keep mine" after the server deleted it). */
  forget(local: string): void {
    this.q('DELETE FROM sync_file_map WHERE local_uuid = ?').run(local);
  }

  // File operations in the outbox (sync_outbox rows whose op starts with file_)

  /**
   * Local files under a top-level record with an unsent or conflicting file operation, or a
   * metadata change the server refused: that stays here, listed with why, rather than being
   * undone by the next pull. (A refused delete is not kept: the file comes back from the server,
   * listed with why, as a record whose delete was refused does.)
   */
  pendingItems(top: string): Set<string> {
    const rows = this.q(
      `SELECT item_uuid FROM sync_outbox WHERE top_record_uuid = ? AND op LIKE 'file\\_%' ESCAPE '\\'
        AND (state IN ('pending', 'conflict') OR (state = 'parked' AND op = 'file_meta'))`,
    )
      .pluck()
      .all(top) as string[];
    return new Set(rows);
  }

  /** The file's waiting metadata change waits for the person's choice too. */
  parkMeta(item: string, why: string): void {
    this.q(
      "UPDATE sync_outbox SET state = 'conflict', last_error = ?, attempts = attempts + 1 WHERE item_uuid = ? AND op = 'file_meta' AND state = 'pending'",
    ).run(why, item);
  }

  /**
   * The file's waiting delete waits for the person's choice, with the server's entry kept for a
   * "keep theirs" (as the push keeps it). False when no delete of it waits.
   */
  parkDelete(item: string, why: string, theirs: unknown): boolean {
    const op = this.q(
      "SELECT id, payload FROM sync_outbox WHERE item_uuid = ? AND op = 'file_delete' AND state IN ('pending', 'conflict') ORDER BY id DESC LIMIT 1",
    ).get(item) as { id: number; payload: string | null } | undefined;
    if (!op) return false;
    const payload = { ...(op.payload ? (JSON.parse(op.payload) as object) : {}), theirs };
    this.q("UPDATE sync_outbox SET state = 'conflict', last_error = ?, attempts = attempts + 1, payload = ? WHERE id = ?").run(
      why,
      JSON.stringify(payload),
      op.id,
    );
    return true;
  }

  /** Every waiting or conflicting operation of the file is settled (a choice replaced them). */
  dropOps(item: string): void {
    this.q(
      "UPDATE sync_outbox SET state = 'done' WHERE item_uuid = ? AND op LIKE 'file\\_%' ESCAPE '\\' AND state IN ('pending', 'conflict')",
    ).run(item);
  }

  /** The file's operation of this kind held in a conflict, with its payload (JSON). */
  conflictOp(item: string, op: string): { id: number; payload: string | null } | undefined {
    return this.q("SELECT id, payload FROM sync_outbox WHERE item_uuid = ? AND op = ? AND state = 'conflict' ORDER BY id DESC LIMIT 1").get(
      item,
      op,
    ) as { id: number; payload: string | null } | undefined;
  }

  /** Whether the file's metadata waits in an open conflict (a new edit then joins it). */
  metaInConflict(item: string): boolean {
    return this.conflictOp(item, 'file_meta') !== undefined;
  }

  setPayload(id: number, payload: unknown): void {
    this.q('UPDATE sync_outbox SET payload = ? WHERE id = ?').run(JSON.stringify(payload), id);
  }

  requeue(id: number, payload: unknown): void {
    this.q("UPDATE sync_outbox SET state = 'pending', last_error = NULL, payload = ? WHERE id = ?").run(JSON.stringify(payload), id);
  }

  /** Original files under a top-level record (its children's too), with their record's uuid. */
  originalsUnder(topRid: number): (FileRow & { record_uuid: string })[] {
    return this.q(
      `SELECT f.*, r.uuid AS record_uuid FROM files f JOIN records r ON r.rid = f.record_rid
       WHERE r.top_rid = ? AND +f.parent_rid IS NULL ORDER BY f.rid`,
    ).all(topRid) as (FileRow & { record_uuid: string })[];
  }

  // Datasets whose files are kept offline

  setKeepOffline(remoteId: number, dataset: string, keep: boolean): void {
    if (keep) this.q('INSERT OR IGNORE INTO sync_files_offline (remote_id, dataset_uuid) VALUES (?, ?)').run(remoteId, dataset);
    else this.q('DELETE FROM sync_files_offline WHERE remote_id = ? AND dataset_uuid = ?').run(remoteId, dataset);
  }

  offlineDatasets(remoteId: number): string[] {
    return this.q('SELECT dataset_uuid FROM sync_files_offline WHERE remote_id = ? ORDER BY dataset_uuid')
      .pluck()
      .all(remoteId) as string[];
  }

  isSynced(remoteId: number, dataset: string): boolean {
    return !!this.q('SELECT 1 FROM sync_datasets WHERE remote_id = ? AND dataset_uuid = ?').get(remoteId, dataset);
  }

  /** The remote a dataset is synced with (the first, when several are). */
  remoteOfDataset(dataset: string): number | null {
    return (
      (this.q('SELECT remote_id FROM sync_datasets WHERE dataset_uuid = ? ORDER BY remote_id LIMIT 1').pluck().get(dataset) as
        number | undefined) ?? null
    );
  }

  // File rows

  byRid(rid: number): FileRow | undefined {
    return this.q('SELECT * FROM files WHERE rid = ?').get(rid) as FileRow | undefined;
  }

  /** Originals (files and original images) of one record's field, in display order. */
  originals(recordRid: number, fieldId: number): FileRow[] {
    return this.q('SELECT * FROM files WHERE record_rid = ? AND datafield_id = ? AND parent_rid IS NULL ORDER BY display_order, rid').all(
      recordRid,
      fieldId,
    ) as FileRow[];
  }

  derivatives(parentRid: number): FileRow[] {
    return this.q('SELECT * FROM files WHERE parent_rid = ? ORDER BY rid').all(parentRid) as FileRow[];
  }

  /** Originals under the given datatypes (a dataset and its children) whose bytes are not here. */
  missing(datatypeIds: number[]): FileRow[] {
    return this.q(
      `SELECT f.* FROM files f JOIN records r ON r.rid = f.record_rid
       WHERE r.datatype_id IN (SELECT value FROM json_each(?)) AND f.parent_rid IS NULL AND f.content_hash IS NULL ORDER BY f.rid`,
    ).all(JSON.stringify(datatypeIds)) as FileRow[];
  }

  /** Fetched bytes (or a thumbnail made here) fill in a metadata-only row. */
  setContent(rid: number, c: { hash: string; size: number; mime: string; width: number | null; height: number | null }): void {
    this.q(
      'UPDATE files SET content_hash = ?, file_size = ?, mime = ?, width = COALESCE(?, width), height = COALESCE(?, height) WHERE rid = ?',
    ).run(c.hash, c.size, c.mime, c.width, c.height, rid);
  }

  /** The server's public date, quality and display order on an original and its derivatives. */
  setMeta(rid: number, m: FileMeta): void {
    this.q('UPDATE files SET public_date = ?, quality = ?, display_order = ? WHERE rid = ? OR parent_rid = ?').run(
      m.public_date,
      m.quality,
      m.display_order,
      rid,
      rid,
    );
  }

  insertPulled(f: PulledFile): number {
    // The server's file id (its identity there) is kept when no row holds it now and no other
    // file gave it up here (migrations/028_retired_ids.ts).
    const free =
      f.internalId !== null &&
      f.internalId > 0 &&
      !!this.q(idFromElsewhereFreeSql('files', 'internal_id')).pluck().get({ id: f.internalId, owner: f.uuid });
    const internalId = free ? f.internalId : (this.q(NEXT_FILE_ID_SQL).pluck().get() as number);
    return Number(
      this.q(
        `INSERT INTO files (rid, internal_id, uuid, record_rid, datafield_id, is_image, parent_rid, original_name, file_size, width, height,
           caption, source_href, display_order, quality, created_by, create_date, create_auth, public_date)
         VALUES (${nextIdSql('files', 'rid')}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        internalId,
        f.uuid,
        f.recordRid,
        f.fieldId,
        f.isImage ? 1 : 0,
        f.parentRid,
        f.name,
        f.size,
        f.width,
        f.height,
        f.caption,
        f.href,
        f.displayOrder,
        f.quality,
        f.createdBy,
        f.createDate,
        f.createAuth,
        f.publicDate,
      ).lastInsertRowid,
    );
  }
}

/** The connection's one SyncFileStore (statements prepared once per connection). */
export const syncFileStore = perConnection((db: Database) => new SyncFileStore(db));
