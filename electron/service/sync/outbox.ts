import type { Ctx } from '../domain/context.js';
import type { OpName } from '../store/syncState.js';
import { changeLogStore } from '../store/changeLog.js';
import { metaStore } from '../store/meta.js';
import { syncOutbox } from '../store/syncOutbox.js';
import { transaction } from '../store/tx.js';
import { syncFileStore } from '../store/syncFiles.js';

/** What a deleted file was (its change-log entry's old value). */
function deletedFile(old: string | null): { name: string; size: number | null; image: boolean } {
  const o = (old ? JSON.parse(old) : {}) as { original_name?: unknown; file_size?: unknown; image?: unknown };
  return {
    name: typeof o.original_name === 'string' ? o.original_name : '',
    size: typeof o.file_size === 'number' ? o.file_size : null,
    image: o.image === true,
  };
}

/** The uuids of a deleted record's tree, from its delete's snapshot (the record alone if unreadable). */
function treeOf(snapshot: string | null, record: string): string[] {
  const out: string[] = [];
  const walk = (r: { record_uuid?: unknown; records?: unknown }) => {
    if (typeof r.record_uuid === 'string') out.push(r.record_uuid);
    if (Array.isArray(r.records)) for (const c of r.records as object[]) walk(c);
  };
  try {
    walk((snapshot ? JSON.parse(snapshot) : {}) as object);
  } catch {
    // an entry written before snapshots: the record's own operations only
  }
  return out.length ? out : [record];
}

const CURSOR = 'sync_outbox_seq';

/**
 * Turns the change log's local edits into intent-level operations (docs/sync.md §2), in the same
 * transaction that moves the cursor, so nothing is lost or taken twice across restarts.
 * Coalescing: the last value of a field wins; an option's last state wins; create then delete
 * leaves nothing; delete drops the record's other pending operations.
 */
export function collectOutbox(ctx: Ctx): number {
  const meta = metaStore(ctx.db);
  const outbox = syncOutbox(ctx.db);
  const cursor = Number(meta.get(CURSOR) ?? 0);
  const rows = outbox.localChanges(cursor, 20_000);
  if (!rows.length) {
    // The entries after the cursor are the sync's own, which the next call would read past
    // again: each page of a first pull read all the pages before it (quadratic in its size).
    // Moved past them only inside the caller's transaction, never with a commit of its own.
    if (ctx.db.inTransaction) {
      const last = changeLogStore(ctx.db).lastSeq();
      if (last > cursor) meta.set(CURSOR, String(last));
    }
    // Nothing new, mostly (a push collects before each record's settle): no more queries then.
    return 0;
  }
  // Every synced dataset, whichever remote it belongs to: the cursor moves past all of them.
  const datasets = outbox.syncedDatasets();
  const at = new Date().toISOString();
  let added = 0;
  transaction(ctx.db, () => {
    for (const r of rows) {
      if (!r.dataset_uuid || !r.record_uuid || !datasets.has(r.dataset_uuid)) continue;
      const top = r.top_record_uuid ?? r.record_uuid;
      const add = (op: OpName, field = '', item = '', payload: unknown = null) => {
        outbox.upsert({
          dataset: r.dataset_uuid!,
          record: r.record_uuid!,
          top,
          op,
          field,
          item,
          payload: payload === null ? null : JSON.stringify(payload),
          at,
        });
        added++;
      };
      switch (r.op) {
        case 'record.create': {
          const info = r.new ? (JSON.parse(r.new) as { parent_uuid?: string; database_uuid?: string }) : {};
          if (info.parent_uuid) add('create_child', '', '', { parent_uuid: info.parent_uuid, database_uuid: info.database_uuid });
          else add('create');
          break;
        }
        case 'value.set':
          add('value', r.field_uuid ?? '', '', { value: r.new === null ? null : JSON.parse(r.new) });
          break;
        case 'option.select':
        case 'tag.select':
          add('option', r.field_uuid ?? '', r.item_uuid ?? '', { on: true });
          break;
        case 'option.unselect':
        case 'tag.unselect':
          add('option', r.field_uuid ?? '', r.item_uuid ?? '', { on: false });
          break;
        case 'record.public':
          add('public', '', '', { public_date: r.new ? JSON.parse(r.new) : null });
          break;
        case 'record.delete': {
          const created = outbox.hasPendingCreate(r.record_uuid);
          // An earlier delete the server refused (its notice): this one is tried afresh.
          outbox.dropUndoneDelete(r.record_uuid);
          outbox.dropDeleted(r.record_uuid, treeOf(r.old, r.record_uuid));
          if (!created) add('delete');
          break;
        }
        case 'record.restore':
          // A deleted record (top-level or child) is back (its import entry follows and converges
          // it). While its delete is not done (waiting, or refused by the server) the server still
          // has it: the delete is dropped and the record keeps its server identity. Otherwise the
          // server's copy is gone (or never was): the tree is forgotten there and queued to be
          // made anew here, whatever the last server copy of its top-level record still lists (a
          // child's delete leaves that copy stale until the pass reads the parent again). A delete
          // on its way right now is dropped too; its push sees the record back and makes it anew
          // (recreateRestored).
          if (outbox.dropUndoneDelete(r.record_uuid)) outbox.dropTree(r.record_uuid);
          else {
            outbox.forgetRemote(r.record_uuid);
            added += queueTree(outbox, r.dataset_uuid, r.record_uuid, top, at, true);
          }
          break;
        // Files: the original only (derived images are never pushed; the server makes its own).
        case 'file.add':
          add('file_upload', r.field_uuid ?? '', r.item_uuid ?? '');
          break;
        case 'file.meta':
          // While its metadata conflict is open the edit waits in it (its "mine" is the file as
          // it is here when resolved): an operation of its own would go out unchecked.
          if (!syncFileStore(ctx.db).metaInConflict(r.item_uuid ?? '')) add('file_meta', r.field_uuid ?? '', r.item_uuid ?? '');
          break;
        case 'file.delete': {
          const item = r.item_uuid ?? '';
          // Never sent (and no attempt in doubt): nothing to tell the server.
          const unsent = outbox.hasPendingUpload(item) && !syncFileStore(ctx.db).mapRow(item);
          outbox.dropFile(item);
          if (!unsent) add('file_delete', r.field_uuid ?? '', item, deletedFile(r.old));
          break;
        }
        case 'record.import':
          // Written without field-level entries (CSV, ODR export, replace import): new records
          // are created, then each record converges on what is here (pushConverge.ts, converge.ts).
          added += queueTree(outbox, r.dataset_uuid, r.record_uuid, top, at);
          break;
        default:
          // Not the records' business: user roles, dataset create/public/restore (their
          // records log their own entries); a synced dataset cannot be deleted here.
          break;
      }
    }
    meta.set(CURSOR, String(rows.at(-1)!.seq));
  });
  return added;
}

/**
 * Queues what brings a tree (a top-level record's or a child's) to the server: a create for each
 * record it does not know (`gone`: for each, the server deleted the tree), then a converge for each.
 */
function queueTree(outbox: ReturnType<typeof syncOutbox>, dataset: string, record: string, top: string, at: string, gone = false): number {
  let added = 0;
  const add = (uuid: string, op: OpName, payload: unknown = null) => {
    outbox.upsert({
      dataset,
      record: uuid,
      top,
      op,
      field: '',
      item: '',
      payload: payload === null ? null : JSON.stringify(payload),
      at,
    });
    added++;
  };
  for (const t of outbox.tree(record)) {
    const known = !gone && outbox.known(t.uuid, top);
    if (!known && !t.parent_uuid) add(t.uuid, 'create', { imported: true });
    else if (!known) add(t.uuid, 'create_child', { parent_uuid: t.parent_uuid, database_uuid: t.database_uuid });
    add(t.uuid, 'converge');
  }
  return added;
}

/**
 * A record (top-level or child) restored here while its delete was on its way: the server has
 * deleted it by now, so its tree is forgotten there and queued to be made anew (whatever the
 * last server copy of its top-level record still lists). The change log is collected first, so
 * the restore's own entries cannot undo this afterwards.
 */
export function recreateRestored(ctx: Ctx, dataset: string, record: string, top: string): void {
  const outbox = syncOutbox(ctx.db);
  transaction(
    ctx.db,
    () => {
      collectOutbox(ctx);
      outbox.forgetRemote(record);
      // Its descendants' converges, collected with the server still knowing them, would otherwise
      // keep their place ahead of the creates queued now.
      outbox.dropTree(record);
      queueTree(outbox, dataset, record, top, new Date().toISOString(), true);
    },
    'immediate',
  );
}
