import { openAsBlob } from 'node:fs';
import { normalizeRecord } from '../../../shared/legacy.js';
import type { FileEntry, OdrRecord } from '../../../shared/schemas/record.js';
import type { SaveRecord } from '../../../shared/schemas/requests.js';
import { BlobStore } from '../domain/files/blobStore.js';
import { syncFileStore, type SyncFileStore } from '../store/syncFiles.js';
import type { OutboxOp } from '../store/syncState.js';
import type { EngineContext } from './engineContext.js';
import { describeMeta, metaConflict, sameMeta, serverFiles } from './fileMerge.js';
import { childWriteDone, RemoteError } from './remoteClient.js';

type FileOp = Extract<OutboxOp, { op: 'file_upload' | 'file_meta' | 'file_delete' }>;

/** done: settled here; sent: an idempotent write, settled with the record's copy after it. */
export interface FilePushResult {
  outcome: 'done' | 'sent' | 'conflict';
  /** The top-level record as the server answered (upload and save answer with it). */
  answer?: unknown;
}

export const isFileOp = (op: OutboxOp): op is FileOp => op.op === 'file_upload' || op.op === 'file_meta' || op.op === 'file_delete';

/**
 * Files here to the server (docs/sync.md §8): uploads as the real server takes them (multipart,
 * the record's own datatype, `field_uuid`, `template_field_uuid` ""; the 302 followed), deletes,
 * and public date, quality and display order through the save route. Uploads happen exactly
 * once: the server's files on the field are noted durably before the bytes go, and after an
 * answer that never came the new one is looked for (name, size) before anything is sent again.
 */
export class FilePusher {
  private readonly files: SyncFileStore;
  private readonly blobs: BlobStore;

  constructor(private readonly x: EngineContext) {
    this.files = syncFileStore(x.db);
    this.blobs = new BlobStore(x.d.ctx);
  }

  push(op: FileOp, top: string, topR: string): Promise<FilePushResult> {
    if (op.op === 'file_upload') return this.upload(op, topR);
    if (op.op === 'file_meta') return this.meta(op, top, topR);
    return this.delete(op, top, topR);
  }

  private done(op: FileOp): FilePushResult {
    this.x.state.done(op);
    return { outcome: 'done' };
  }

  /** Original files the server lists on one record's field. */
  private onField(rec: OdrRecord, record: string, field: string) {
    return [...serverFiles(rec).values()].filter((f) => f.record === record && f.field === field);
  }

  /** A file on the field that was not there before the upload and is no other local file's. */
  private findUploaded(rec: OdrRecord, recR: string, field: string, known: string[], name: string, size: number | null, image: boolean) {
    return this.onField(rec, recR, field).find(
      (f) =>
        !known.includes(f.uuid) &&
        !this.files.isMapped(this.x.state.remoteId, f.uuid) &&
        f.entry.original_name === name &&
        (image || size === null || f.entry.file_size === undefined || Number(f.entry.file_size) === size),
    );
  }

  /**
   * A file deleted here while an upload or metadata change of it was on its way: settling on the
   * server's answer would bring it back here before the queued delete ran, so it is deleted there
   * now (what the person did last). True when that happened.
   */
  private async deletedMeanwhile(local: string, remote: string): Promise<boolean> {
    if (this.x.d.store.fileByUuid(local)) return false;
    await this.x.remote
      .call((c) => c.deleteFile(remote), true)
      .catch((e: unknown) => {
        // Gone already; or on a child record, which real servers delete and answer 400 for (as in delete).
        if (!(e instanceof RemoteError && e.kind === 'gone') && !childWriteDone(e)) throw e;
      });
    return true;
  }

  private async upload(op: Extract<FileOp, { op: 'file_upload' }>, topR: string): Promise<FilePushResult> {
    const x = this.x;
    const file = x.d.store.fileByUuid(op.item_uuid);
    // Deleted here since: the delete operation settles it (an attempt in doubt included).
    if (!file) return this.done(op);
    if (!file.content_hash) {
      // Listed here without its bytes (an ODR export imported without them): nothing to send.
      throw new RemoteError('permanent', `the bytes of "${file.original_name}" are not on this computer, so it cannot be uploaded`);
    }
    const map = this.files.mapRow(file.uuid);
    if (map?.state === 'bound') return this.done(op);
    const recR = x.state.remoteOf(op.record_uuid)!;
    const image = file.is_image === 1;
    const fresh = await x.remote.record(topR, x.types);
    if (map?.state === 'uploading') {
      const found = this.findUploaded(fresh, recR, op.field_uuid, map.known_before, file.original_name, file.file_size, image);
      if (found) {
        this.files.bind(file.uuid, x.state.remoteId, found.uuid);
        const gone = await this.deletedMeanwhile(file.uuid, found.uuid);
        return { ...this.done(op), answer: gone ? await x.remote.record(topR, x.types) : fresh };
      }
    }
    const known = this.onField(fresh, recR, op.field_uuid).map((f) => f.uuid);
    const rec = x.d.store.byRid(file.record_rid)!;
    const datatype = x.d.datatypeOf(rec).uuid;
    // Deleted here while the record was read: that delete saw no attempt to undo and queued
    // nothing, so an upload now would leave the file on the server for good. The check and
    // beginUpload below run with no await between them, so a later delete sees the attempt.
    if (!x.d.store.fileByUuid(op.item_uuid)) return this.done(op);
    const blob = await openAsBlob(this.blobs.pathOf(file.content_hash), { type: file.mime ?? 'application/octet-stream' }).catch(
      () => null,
    );
    if (!x.d.store.fileByUuid(op.item_uuid)) return this.done(op);
    if (!blob) throw new RemoteError('permanent', `the bytes of "${file.original_name}" cannot be read on this computer`);
    this.files.beginUpload(file.uuid, x.state.remoteId, known);
    const answered = await x.remote.call(
      (c) =>
        c.uploadFile(
          {
            dataset_uuid: datatype,
            record_uuid: recR,
            field_uuid: op.field_uuid,
            template_field_uuid: '',
            created: file.create_date,
            public_date: file.public_date,
            quality: String(file.quality),
            ...(image ? { display_order: String(file.display_order) } : {}),
            user_email: x.remoteUser,
          },
          { blob, name: file.original_name },
        ),
      true,
    );
    let after = normalizeRecord(answered, x.types);
    let found = this.findUploaded(after, recR, op.field_uuid, known, file.original_name, file.file_size, image);
    if (!found && after.record_uuid !== topR) {
      after = await x.remote.record(topR, x.types);
      found = this.findUploaded(after, recR, op.field_uuid, known, file.original_name, file.file_size, image);
    }
    if (!found) throw new RemoteError('permanent', `the server accepted "${file.original_name}" but does not list it on the record`);
    this.files.bind(file.uuid, x.state.remoteId, found.uuid);
    if (await this.deletedMeanwhile(op.item_uuid, found.uuid)) after = await x.remote.record(topR, x.types);
    return { ...this.done(op), answer: after };
  }

  private async meta(op: Extract<FileOp, { op: 'file_meta' }>, top: string, topR: string): Promise<FilePushResult> {
    const x = this.x;
    const file = x.d.store.fileByUuid(op.item_uuid);
    if (!file) return this.done(op);
    const r = this.files.remoteOf(file.uuid);
    if (r === null) throw new RemoteError('transient', `"${file.original_name}" is not on the server yet`);
    const recR = x.state.remoteOf(op.record_uuid)!;
    const fresh = await x.remote.record(topR, x.types);
    const theirs = this.onField(fresh, recR, op.field_uuid).find((f) => f.uuid === r);
    const image = file.is_image === 1;
    const mine = { public_date: file.public_date, quality: file.quality, display_order: image ? file.display_order : 0 };
    if (!theirs) {
      // Deleted on the server, changed here: the person chooses.
      const base = x.state.base(topR);
      const was = base ? serverFiles(base).get(r) : undefined;
      x.state.recordConflict(
        op.dataset_uuid,
        top,
        {
          record: op.record_uuid,
          field: op.field_uuid,
          name: `${was?.fieldName ?? 'File'}: ${file.original_name}`,
          base: was ? describeMeta(file.original_name, was.meta) : '',
          mine: `changed here (${describeMeta(file.original_name, mine)})`,
          theirs: 'deleted on the server',
        },
        file.uuid,
      );
      x.state.park(op, 'deleted on the server: see conflicts', 'conflict');
      return { outcome: 'conflict' };
    }
    if (sameMeta(theirs.meta, mine)) return { outcome: 'sent' };
    const was = x.state.base(topR) ? serverFiles(x.state.base(topR)!).get(r) : undefined;
    if (!op.payload?.force && was && !sameMeta(was.meta, theirs.meta)) {
      // Changed here and on the server since the last copy: the person chooses.
      x.state.recordConflict(
        op.dataset_uuid,
        top,
        metaConflict(
          { ...op, record: op.record_uuid, field: op.field_uuid, name: file.original_name, meta: mine },
          theirs.fieldName,
          was.meta,
          theirs.meta,
        ),
        file.uuid,
      );
      this.files.setPayload(op.id, { theirs: theirs.meta });
      x.state.park(op, 'changed on the server too: see conflicts', 'conflict');
      return { outcome: 'conflict' };
    }
    const entry = {
      file_uuid: r,
      public_date: mine.public_date,
      quality: mine.quality,
      ...(image ? { display_order: mine.display_order } : {}),
    };
    const answer = await x.remote.call((c) => c.save(withFileMeta(fresh, recR, op.field_uuid, entry)), true);
    // Without the answer the settle reads the server's copy afresh.
    return { outcome: 'sent', answer: (await this.deletedMeanwhile(file.uuid, r)) ? undefined : answer };
  }

  private async delete(op: Extract<FileOp, { op: 'file_delete' }>, top: string, topR: string): Promise<FilePushResult> {
    const x = this.x;
    const map = this.files.mapRow(op.item_uuid);
    const recR = x.state.remoteOf(op.record_uuid)!;
    const fresh = await x.remote.record(topR, x.types);
    let r: string | null;
    if (map?.state === 'uploading') {
      // Deleted while its upload was in doubt: delete what that upload made, if it made anything.
      r = this.findUploaded(fresh, recR, op.field_uuid, map.known_before, op.payload.name, op.payload.size, op.payload.image)?.uuid ?? null;
    } else {
      r = map ? map.remote_uuid : op.item_uuid;
    }
    const theirs = r ? this.onField(fresh, recR, op.field_uuid).find((f) => f.uuid === r) : undefined;
    if (!r || !theirs) return this.done(op); // not on the server (any more)
    const base = x.state.base(topR);
    const was = base ? serverFiles(base).get(r) : undefined;
    if (!op.payload.force && was && !sameMeta(was.meta, theirs.meta)) {
      // Deleted here, changed on the server: the person chooses.
      x.state.recordConflict(
        op.dataset_uuid,
        top,
        {
          record: op.record_uuid,
          field: op.field_uuid,
          name: `${theirs.fieldName}: ${op.payload.name}`,
          base: describeMeta(op.payload.name, was.meta),
          mine: 'deleted here',
          theirs: `changed on the server (${describeMeta(op.payload.name, theirs.meta)})`,
        },
        op.item_uuid,
      );
      this.files.setPayload(op.id, {
        ...op.payload,
        theirs: { record: op.record_uuid, field: op.field_uuid, entry: theirs.entry, thumbs: theirs.thumbs },
      });
      x.state.park(op, 'changed on the server: see conflicts', 'conflict');
      return { outcome: 'conflict' };
    }
    try {
      await x.remote.call((c) => c.deleteFile(r), true);
    } catch (e) {
      // Gone already; or a file on a child record, which real servers delete and answer 400 for
      // (docs/odr-server.md §9.4): the record read after this pass shows what the server holds.
      const child = op.record_uuid !== top;
      if (!(e instanceof RemoteError && e.kind === 'gone') && !(child && childWriteDone(e))) throw e;
    }
    return { outcome: 'sent' };
  }
}

/** A save body that changes one file's metadata: every descendant listed (full state, fact 1). */
export function withFileMeta(
  top: OdrRecord,
  record: string,
  field: string,
  entry: Record<string, unknown> & { file_uuid: string },
): SaveRecord {
  const walk = (r: OdrRecord): SaveRecord => ({
    record_uuid: r.record_uuid,
    database_uuid: r.database_uuid,
    ...(r.record_uuid === record ? { fields: [{ field_uuid: field, files: [entry] }] } : {}),
    records: (r.records ?? []).map(walk),
  });
  return walk(top);
}

/** A conflict's stored server entry, read back when "keep theirs" restores the file here. */
export interface KeptTheirs {
  record: string;
  field: string;
  entry: FileEntry;
  thumbs: FileEntry[];
}
