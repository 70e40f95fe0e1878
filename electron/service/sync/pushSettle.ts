import { normalizeRecord } from '../../../shared/legacy.js';
import type { OdrRecord } from '../../../shared/schemas/record.js';
import type { OutboxOp } from '../store/syncState.js';
import { refetchableTransaction } from '../store/tx.js';
import { collectOutbox } from './outbox.js';
import { settleCut } from './pushCut.js';
import type { TopPass } from './pushPass.js';
import { RemoteError } from './remoteClient.js';

/**
 * Idempotent writes (value, option, public, delete) are marked done together with the server's
 * copy after them (`after`), in one commit; after a crash in between they are sent again, which
 * changes nothing. Creates record their progress at once (pushCreate.ts).
 */
function settle(p: TopPass, ops: OutboxOp[], after: OdrRecord | null, dataset: string): void {
  const x = p.x;
  // Read before the transaction, from the render cache the conflict check filled; nothing
  // runs in between (one synchronous step), and marking operations done changes no record.
  const local = after ? x.localRecord(p.top) : undefined;
  // Without its own fsync (store/tx.ts): lost to a power cut, the writes are sent again.
  refetchableTransaction(x.db, () => {
    for (const op of ops) x.state.done(op);
    if (!after) return;
    // Edits made here while the writes were on their way become operations now (after the
    // sent ones are done, so they are not taken for sent): the record is then merged, and
    // those edits wait for the next pass instead of being replaced by the server's answer.
    collectOutbox(x.d.ctx);
    // A public date's key is `record|` (its operation has no field).
    const written = new Set(ops.filter((o) => o.op === 'value' || o.op === 'public').map((o) => `${o.record_uuid}|${o.field_uuid}`));
    p.puller.applyRemote(after, dataset, p.importer, local, undefined, written);
  });
}

/** The end of a record's push: the server's copy after our writes comes in with what was sent. */
export async function settleTop(p: TopPass): Promise<void> {
  const x = p.x;
  const topR = x.state.remoteOf(p.top);
  let after: OdrRecord | null = null;
  if (topR && x.d.store.byUuid(p.top)) {
    try {
      // The server's copy after our writes: its other changes come in now, then it is the base.
      const answered = p.answer as { record_uuid?: unknown } | undefined;
      after = answered?.record_uuid === topR ? normalizeRecord(answered, x.types) : await x.remote.record(topR, x.types);
    } catch (e) {
      if (!(e instanceof RemoteError && e.kind === 'gone')) throw e;
    }
  }
  // The server's copy is applied for the user too. Checked after the last read, so the check
  // and the write are one synchronous step: a demotion during that read stops it here.
  try {
    x.recheck();
  } catch (e) {
    settleCut(p, p.list[0]!.dataset_uuid, after);
    throw e;
  }
  settle(p, p.sent, after, p.list[0]!.dataset_uuid);
  p.puller.announce();
}
