import type { OdrRecord } from '../../../shared/schemas/record.js';
import { RECORD_DELETED_FIELD } from '../../../shared/schemas/sync.js';
import { BlobStore } from '../domain/files/blobStore.js';
import { deleteRecords } from '../domain/records/ops.js';
import type { EngineContext } from './engineContext.js';
import { childrenOf } from './recordFields.js';
import { syncOutbox } from '../store/syncOutbox.js';

/**
 * Children the server deleted: listed in the base (so the server had them) and no longer in its
 * copy, outermost only (each goes with its descendants). No base, no telling: none.
 */
export function goneChildren(theirs: OdrRecord, base: OdrRecord | null, local: OdrRecord): OdrRecord[] {
  if (!base) return [];
  const there = new Set(childrenOf(theirs).map((c) => c.record_uuid));
  const was = new Set(childrenOf(base).map((c) => c.record_uuid));
  const out: OdrRecord[] = [];
  const walk = (r: OdrRecord) => {
    for (const c of r.records ?? []) {
      if (was.has(c.record_uuid) && !there.has(c.record_uuid)) out.push(c);
      else walk(c);
    }
  };
  walk(local);
  return out;
}

/** `rec` without the children (any depth) whose uuid is in `drop`. */
export function withoutChildren(rec: OdrRecord, drop: ReadonlySet<string>): OdrRecord {
  if (!drop.size) return rec;
  return { ...rec, records: (rec.records ?? []).filter((c) => !drop.has(c.record_uuid)).map((c) => withoutChildren(c, drop)) };
}

/**
 * On the merge path (docs/sync.md §3), children the server deleted: deleted here too (to the
 * record trash, as the sync's own write, so never pushed back), unless a change of them waits
 * here (`pending`, `record|field` keys: unsent, in conflict or refused; a grandchild made here).
 * Such a child stays, with its operations held in a conflict the user resolves ("mine" makes it
 * on the server again, "theirs" deletes it here). Answers the server uuids of the children kept,
 * which the file merge must not take for deleted on the server.
 */
export function settleGoneChildren(
  x: EngineContext,
  dataset: string,
  top: string,
  gone: OdrRecord[],
  pending: ReadonlySet<string>,
): Set<string> {
  const changed = new Set([...pending].map((k) => k.slice(0, k.indexOf('|'))));
  const kept = new Set<string>();
  const orphans: string[] = [];
  const outbox = syncOutbox(x.db);
  x.asSync(() => {
    for (const c of gone) {
      // Restored here after its delete went out: queued to be made on the server anew.
      if (outbox.hasPendingCreate(c.record_uuid)) continue;
      const tree = [c, ...childrenOf(c)].map((r) => r.record_uuid);
      if (!tree.some((u) => changed.has(u))) {
        if (x.d.store.byUuid(c.record_uuid)) orphans.push(...deleteRecords(x.d, x.user, [c.record_uuid]).orphanCandidates);
        continue;
      }
      kept.add(x.state.remoteOf(c.record_uuid) ?? c.record_uuid);
      const type = x.d.schema().datatypesByUuid.get(c.database_uuid)?.name ?? 'Child record';
      x.state.recordConflict(dataset, top, {
        record: c.record_uuid,
        field: RECORD_DELETED_FIELD,
        name: `${type} (child record)`,
        base: 'on the server',
        mine: 'kept here, with changes not sent yet',
        theirs: 'deleted on the server',
      });
      x.state.holdTree(tree, 'deleted on the server: see conflicts');
    }
  });
  // The bytes stay while the deleted child can be restored from the trash; this is for the rest.
  if (orphans.length) new BlobStore(x.d.ctx).removeUnreferenced(orphans);
  return kept;
}
