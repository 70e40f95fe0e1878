import { findRecord } from '../../../shared/recordTree.js';
import { syncFileStore } from '../store/syncFiles.js';
import { syncOutbox } from '../store/syncOutbox.js';
import type { OutboxOp } from '../store/syncState.js';
import { transaction } from '../store/tx.js';
import { convergeOps } from './converge.js';
import type { EngineContext } from './engineContext.js';

/**
 * A record written without field-level log entries (an import): the operations that make the
 * server's copy equal to ours go into the outbox, durably, in place of this one, and are
 * returned to be sent in this pass like any other.
 */
export function expandConverge(x: EngineContext, op: Extract<OutboxOp, { op: 'converge' }>, top: string, topR: string): OutboxOp[] {
  const here = x.localRecord(top);
  const node = here ? findRecord(here, op.record_uuid) : undefined;
  const baseTop = x.state.base(topR);
  const base = baseTop ? (findRecord(x.localised(baseTop), op.record_uuid) ?? null) : null;
  const schema = x.d.schema();
  const files = syncFileStore(x.db);
  const ops = node
    ? convergeOps({
        local: node,
        base,
        live: (f) => schema.fieldsByUuid.has(f),
        remoteFile: (u) => files.remoteOf(u),
        fileMapped: (u) => files.mapRow(u) !== undefined,
        localFile: (r) => files.localOf(x.state.remoteId, r),
      })
    : [];
  const outbox = syncOutbox(x.db);
  const at = new Date().toISOString();
  transaction(
    x.db,
    () => {
      for (const o of ops) {
        if (o.op === 'file_meta' && files.metaInConflict(o.item)) continue; // joins its open conflict
        outbox.upsert({
          dataset: op.dataset_uuid,
          record: op.record_uuid,
          top,
          op: o.op,
          field: o.field,
          item: o.item,
          payload: o.payload === null ? null : JSON.stringify(o.payload),
          at,
        });
      }
      x.state.done(op);
    },
    'immediate',
  );
  return x.state.pending(op.record_uuid);
}
