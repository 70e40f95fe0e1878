import type { FileEntry, OdrRecord } from '../../../shared/schemas/record.js';
import { BlobStore } from '../domain/files/blobStore.js';
import { deleteFile } from '../domain/files/fileOps.js';
import { syncFileStore, type SyncFileStore } from '../store/syncFiles.js';
import type { EngineContext } from './engineContext.js';
import { mergeFiles, metaOf, type LocalFile, type ServerFile } from './fileMerge.js';

const int = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s) ? Number(s) : null);

/**
 * Applies what a server copy changes about the files of a record here (fileMerge.ts decides):
 * server files come in as metadata (bytes on first use, sync/filePull.ts), deletions and
 * metadata changes are applied, and a file deleted there but changed here becomes a conflict.
 */
export class FileReconciler {
  private readonly files: SyncFileStore;

  constructor(private readonly x: EngineContext) {
    this.files = syncFileStore(x.db);
  }

  /** `theirsRaw` and `baseRaw` as the server has them; call in the pull's transaction. */
  reconcile(theirsRaw: OdrRecord, baseRaw: OdrRecord | null, localTop: string, dataset: string): void {
    const x = this.x;
    const topRow = x.d.store.byUuid(localTop);
    if (!topRow) return;
    const local: LocalFile[] = this.files.originalsUnder(topRow.rid).map((f) => ({
      record: f.record_uuid,
      field: x.d.schema().fields.get(f.datafield_id)?.uuid ?? '',
      uuid: f.uuid,
      remote: this.files.remoteOf(f.uuid),
      name: f.original_name,
      image: f.is_image === 1,
      meta: { public_date: f.public_date, quality: f.quality, display_order: f.is_image ? f.display_order : 0 },
    }));
    const actions = mergeFiles({
      theirs: x.localised(theirsRaw),
      base: baseRaw ? x.localised(baseRaw) : null,
      local,
      pending: this.files.pendingItems(localTop),
      localOf: (r) => this.files.localOf(x.state.remoteId, r),
    });
    if (!actions.length) return;
    const orphans: string[] = [];
    x.asSync(() => {
      for (const a of actions) {
        if (a.kind === 'add') this.insert(a.file);
        else if (a.kind === 'meta') {
          const row = x.d.store.fileByUuid(a.local.uuid);
          if (!row) continue;
          this.files.setMeta(row.rid, a.file.meta);
          this.logged(a.file.record, 'file.meta', a.file.field, row.uuid);
        } else if (a.kind === 'delete') {
          orphans.push(...deleteFile(x.d, x.user, a.local.uuid).orphanCandidates);
        } else if (a.kind === 'metaConflict') {
          x.state.recordConflict(dataset, localTop, a.draft, a.local.uuid);
          this.files.parkMeta(a.local.uuid, 'changed on the server too: see conflicts');
          const op = this.files.conflictOp(a.local.uuid, 'file_meta');
          if (op) this.files.setPayload(op.id, { theirs: a.file.meta });
        } else if (a.kind === 'deleteConflict') {
          const kept = { record: a.file.record, field: a.file.field, entry: a.file.entry, thumbs: a.file.thumbs };
          if (this.files.parkDelete(a.local, 'changed on the server: see conflicts', kept))
            x.state.recordConflict(dataset, localTop, a.draft, a.local);
        } else {
          x.state.recordConflict(dataset, localTop, a.draft, a.local.uuid);
          this.files.parkMeta(a.local.uuid, 'deleted on the server: see conflicts');
        }
      }
    });
    if (orphans.length) new BlobStore(x.d.ctx).removeUnreferenced(orphans);
  }

  /** A server file (an original with its thumbnails) listed here, its bytes fetched on use. */
  insert(file: Pick<ServerFile, 'record' | 'field' | 'entry' | 'thumbs'>): void {
    const x = this.x;
    const { record, entry, thumbs } = file;
    const rec = x.d.store.byUuid(record);
    if (!rec) return;
    const field = x.d.datatypeOf(rec).fields.find((f) => f.uuid === file.field);
    if (!field) return;
    const image = entry.width !== undefined;
    const m = metaOf(entry, image);
    const raw = entry._file_metadata ?? {};
    const uuid = this.files.localOf(x.state.remoteId, entry.file_uuid);
    if (x.d.store.fileByUuid(uuid)) return;
    const row = (e: FileEntry, parentRid: number | null, u: string) =>
      this.files.insertPulled({
        uuid: u,
        internalId: e.id,
        recordRid: rec.rid,
        fieldId: field.id,
        isImage: image,
        parentRid,
        name: e.original_name,
        size: image ? null : int(e.file_size),
        width: int(e.width),
        height: int(e.height),
        caption: e.caption ?? '',
        href: e.href || null,
        displayOrder: m.display_order,
        quality: m.quality,
        createdBy: x.user.id,
        createDate: raw._create_date || rec.create_date,
        createAuth: raw._create_auth || rec.create_auth,
        publicDate: m.public_date || rec.public_date,
      });
    const rid = row(entry, null, uuid);
    for (const t of thumbs) if (!x.d.store.fileByUuid(t.file_uuid)) row(t, rid, t.file_uuid);
    this.logged(record, 'file.add', field.uuid, uuid);
  }

  /** A history entry marked as coming from the server (never pushed); drops cached renders. */
  private logged(record: string, op: string, field: string, item: string): void {
    const rec = this.x.d.store.byUuid(record);
    if (rec) this.x.d.logRecordChange(this.x.d.now(), this.x.user, rec, { op: `${op}.pulled`, fieldUuid: field, itemUuid: item });
  }
}
