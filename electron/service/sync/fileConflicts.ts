import type { SyncConflict } from '../../../shared/schemas/sync.js';
import type { Domain } from '../domain/domain.js';
import { OdrError, badRequest } from '../domain/errors.js';
import { BlobStore } from '../domain/files/blobStore.js';
import { deleteFile } from '../domain/files/fileOps.js';
import type { User } from '../domain/users.js';
import { syncFileStore } from '../store/syncFiles.js';
import { syncOutbox } from '../store/syncOutbox.js';
import type { SyncLedger } from '../store/syncState.js';
import type { FileMeta } from './fileMerge.js';
import type { KeptTheirs } from './filePush.js';

type OpenConflict = SyncConflict & { top_record_uuid: string };

/**
 * A file deleted on one side and changed on the other (docs/sync.md §8). Deleted on the server,
 * changed here: "mine" uploads the file again as new, "theirs" deletes it here. Deleted here,
 * changed on the server: "mine" deletes it on the server after all, "theirs" puts the server's
 * file back here (its bytes come on first use). Public date, quality or display order changed on
 * both sides: "mine" sends ours over the server's, "theirs" takes the server's here. Runs in the
 * caller's transaction.
 */
export function resolveFileConflict(
  d: Domain,
  user: User,
  ledger: SyncLedger,
  c: OpenConflict,
  choice: string,
  restore: (kept: KeptTheirs) => void,
): void {
  if (choice !== 'mine' && choice !== 'theirs') throw badRequest('A file conflict is resolved with "mine" or "theirs"');
  const files = syncFileStore(d.ctx.db);
  const item = c.item_uuid;
  const here = d.store.fileByUuid(item);
  const metaOp = here ? files.conflictOp(item, 'file_meta') : undefined;
  const theirsMeta = metaOp?.payload ? (JSON.parse(metaOp.payload) as { theirs?: FileMeta }).theirs : undefined;
  if (here && metaOp && theirsMeta) {
    // Metadata changed on both sides: mine is sent over the server's, or theirs applied here.
    if (choice === 'mine') files.requeue(metaOp.id, { force: true });
    else {
      files.dropOps(item);
      files.setMeta(here.rid, theirsMeta);
      const rec = d.store.byRid(here.record_rid);
      if (rec)
        d.log.as('sync', () => d.logRecordChange(d.now(), user, rec, { op: 'file.meta.pulled', fieldUuid: c.field_uuid, itemUuid: item }));
    }
  } else if (here) {
    // Deleted on the server and never downloaded here: no copy of the bytes is left to send.
    if (choice === 'mine' && here.content_hash === null)
      throw new OdrError(
        409,
        `The bytes of "${here.original_name}" are not on this computer and the server deleted it, so it cannot be uploaded again: choose "theirs"`,
      );
    files.dropOps(item);
    if (choice === 'mine') {
      files.forget(item);
      syncOutbox(d.ctx.db).upsert({
        dataset: c.dataset_uuid,
        record: c.record_uuid,
        top: c.top_record_uuid,
        op: 'file_upload',
        field: c.field_uuid,
        item,
        payload: null,
        at: new Date().toISOString(),
      });
    } else {
      const orphans = deleteFile(d, user, item).orphanCandidates;
      new BlobStore(d.ctx).removeUnreferenced(orphans);
    }
  } else {
    const op = files.conflictOp(item, 'file_delete');
    const payload = op?.payload ? (JSON.parse(op.payload) as Record<string, unknown> & { theirs?: KeptTheirs }) : null;
    if (choice === 'mine' && op && payload) {
      files.requeue(op.id, { ...payload, force: true, theirs: undefined });
    } else {
      files.dropOps(item);
      if (payload?.theirs) restore(payload.theirs);
    }
  }
  ledger.closeConflict(c.id, choice);
}
