import type { AttentionAction, AttentionAnswer } from '../../../shared/schemas/sync.js';
import type { Domain } from '../domain/domain.js';
import { notFound, OdrError } from '../domain/errors.js';
import { deleteFile } from '../domain/files/fileOps.js';
import { deleteRecords, setOption, setPublicDate, setValue } from '../domain/records/ops.js';
import type { User } from '../domain/users.js';
import { syncFileStore } from '../store/syncFiles.js';
import { syncOutbox } from '../store/syncOutbox.js';
import { SyncLedger, SyncState, type ParkedRow } from '../store/syncState.js';
import { transaction } from '../store/tx.js';
import { metaOf } from './fileMerge.js';
import { collectOutbox } from './outbox.js';
import { findRecord } from '../../../shared/recordTree.js';

// "Needs attention" (docs/sync.md §5): an operation the server refused waits until the user
// retries it (queued again as it is) or discards it (dropped, and what it changed here goes back
// to the server's state as last seen, the base copy; the next pull brings anything newer).

/** Retries or discards one parked operation; answers what became of it. Bytes left unreferenced are returned to remove. */
export function attend(d: Domain, user: User, id: number, action: AttentionAction): AttentionAnswer & { orphans: string[] } {
  const ledger = new SyncLedger(d.ctx.db);
  const orphans: string[] = [];
  const state = transaction(
    d.ctx.db,
    () => {
      if (!ledger.parkedRow(id)) throw notFound(`operation needing attention (${id})`);
      // A newer edit of the same target may wait in the change log, not yet collected: taken in
      // first, it closes this row, and neither choice may then undo or resend the stale one.
      collectOutbox(d.ctx);
      const row = ledger.parkedRow(id);
      if (!row) return 'replaced' as const;
      if (action === 'retry') return retry(d, user, ledger, row, orphans);
      d.log.as('sync', () => discard(d, user, row, orphans));
      ledger.closeParked(row.id);
      return 'discarded' as const;
    },
    'immediate',
  );
  // Thrown after the commit: the newer edit stays collected and this row stays closed.
  if (state === 'replaced') throw new OdrError(409, REPLACED);
  return { id, action, state, orphans };
}

const REPLACED = 'This refused change was replaced by a newer edit of the same thing, which the next sync sends';

function retry(d: Domain, user: User, ledger: SyncLedger, row: ParkedRow, orphans: string[]): AttentionAnswer['state'] | 'replaced' {
  if (row.undone) throw new OdrError(409, 'This refused change is no longer here (an earlier version undid it): make it again to send it');
  if (row.op !== 'delete') {
    // A newer operation of the same key (a file's metadata edited again) already waits: it
    // carries the newer state, so this one is closed rather than queued beside it.
    if (ledger.requeue(row.id)) return 'queued';
    ledger.closeParked(row.id);
    return 'replaced';
  }
  // A refused delete: the record is back here. Deleting it again is the retry; that delete
  // replaces this row (outbox.ts).
  if (!d.store.byUuid(row.record_uuid)) throw new OdrError(409, 'The record is no longer here: there is nothing to delete again');
  orphans.push(...deleteRecords(d, user, [row.record_uuid]).orphanCandidates);
  ledger.closeParked(row.id);
  return 'queued';
}

/** The local effect of a refused operation set back to the server's (its base copy). */
function discard(d: Domain, user: User, row: ParkedRow, orphans: string[]): void {
  const here = d.store.byUuid(row.record_uuid);
  switch (row.op) {
    case 'create':
    case 'create_child':
      // The server never made it: to the record trash (restorable), as the sync's own delete. The
      // outbox never sees that delete, so the record's other operations are dropped here.
      new SyncLedger(d.ctx.db).dropRecordOps(
        syncOutbox(d.ctx.db)
          .tree(row.record_uuid)
          .map((t) => t.uuid),
      );
      if (here) orphans.push(...deleteRecords(d, user, [row.record_uuid]).orphanCandidates);
      return;
    case 'file_upload': {
      if (d.store.fileByUuid(row.item_uuid)) orphans.push(...deleteFile(d, user, row.item_uuid).orphanCandidates);
      return;
    }
    case 'value':
    case 'option':
    case 'public':
    case 'file_meta':
      break;
    // A refused delete (the record is back here), file delete (the server's file came back) or
    // converge: here already holds what the server has, or the next pull brings it.
    default:
      return;
  }
  if (!here) return;
  const base = baseOf(d, row);
  if (!base) throw new OdrError(409, 'No server copy of this record is known here: retry it, or edit it back by hand');
  const rec = findRecord(base.copy, base.remoteOf(row.record_uuid) ?? row.record_uuid);
  if (!rec) throw new OdrError(409, 'The last server copy does not hold this record: retry it, or edit it back by hand');
  const entry = rec.fields.find((f) => f.field_uuid === row.field_uuid);
  if (row.op === 'public') {
    const date = rec._record_metadata._public_date;
    if (date) setPublicDate(d, user, row.dataset_uuid, row.record_uuid, date);
  } else if (row.op === 'value') {
    setValue(d, user, row.record_uuid, row.field_uuid, entry?.selected ?? entry?.value ?? '');
  } else if (row.op === 'option') {
    const on = [...(entry?.values ?? []).map((v) => v.template_radio_option_uuid), ...(entry?.tags ?? []).map((t) => t.template_tag_uuid)];
    setOption(d, user, row.record_uuid, row.field_uuid, row.item_uuid, on.includes(row.item_uuid));
  } else {
    const files = syncFileStore(d.ctx.db);
    const remote = files.remoteOf(row.item_uuid);
    const there = rec.fields.flatMap((f) => f.files ?? []).find((f) => f.file_uuid === remote);
    const file = d.store.fileByUuid(row.item_uuid);
    if (there && file) {
      files.setMeta(file.rid, metaOf(there, there.width !== undefined));
      d.logRecordChange(d.now(), user, here, { op: 'file.meta.pulled', fieldUuid: row.field_uuid, itemUuid: row.item_uuid });
    }
  }
}

function baseOf(d: Domain, row: ParkedRow) {
  const remoteId = syncFileStore(d.ctx.db).remoteOfDataset(row.dataset_uuid);
  if (remoteId === null) return null;
  const state = new SyncState(d.ctx.db, remoteId);
  const top = state.remoteOf(row.top_record_uuid);
  const copy = top ? state.base(top) : null;
  return copy ? { copy, remoteOf: (u: string) => state.remoteOf(u) } : null;
}
