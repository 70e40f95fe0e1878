import { restoreRecord } from '../domain/records/trash.js';
import type { OutboxOp } from '../store/syncState.js';
import { transaction } from '../store/tx.js';
import type { EngineContext } from './engineContext.js';
import { collectOutbox, recreateRestored } from './outbox.js';
import { RemoteError } from './remoteClient.js';

/** A record deleted here, deleted on the server (already gone there: done all the same). */
export async function pushDelete(x: EngineContext, op: Extract<OutboxOp, { op: 'delete' }>, top: string): Promise<void> {
  const r = x.state.remoteOf(op.record_uuid);
  if (!r) return;
  await x.remote
    .call((c) => c.deleteRecords([r]), true)
    .catch((e: unknown) => {
      if (!(e instanceof RemoteError && e.kind === 'gone')) throw e;
    });
  // Done at once, not with the record's other writes: a restore from now on must see
  // the server's copy gone (outbox.ts). Sent again after a crash, it changes nothing.
  transaction(x.db, () => {
    x.state.dropBase(r);
    x.state.done(op);
  });
  // Restored here while the delete was on its way.
  if (x.d.store.byUuid(op.record_uuid)) recreateRestored(x.d.ctx, op.dataset_uuid, op.record_uuid, top);
}

/**
 * The server refused a delete: it keeps the record, so the next pull would bring its copy back
 * here without a word, and without what only this side had (edits not sent before the delete,
 * files). The record is restored here from the trash instead, as the user's own restore would
 * (its edits then converge on the server), and the refusal stays listed under "needs
 * attention". Not restorable (the trash entry expired, its dataset or parent is gone): parked,
 * and the pull brings the server's copy back with that notice.
 */
export function refusedDelete(x: EngineContext, op: OutboxOp, why: string): void {
  const said = `the server refused to delete this record (${why})`;
  try {
    transaction(
      x.db,
      () => {
        restoreRecord(x.d, x.user, op.record_uuid);
        // The restore drops the delete and queues the record's converge.
        collectOutbox(x.d.ctx);
        x.state.refusedDelete(op, `${said}: it is back here with its changes and files`);
      },
      'immediate',
    );
  } catch (e) {
    x.state.park(op, `${said}: the server's copy comes back here (not restorable here: ${(e as Error).message})`);
  }
}
