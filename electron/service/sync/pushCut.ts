import { normalizeRecord } from '../../../shared/legacy.js';
import { findRecord } from '../../../shared/recordTree.js';
import type { OdrRecord } from '../../../shared/schemas/record.js';
import { RightLost } from '../domain/errors.js';
import type { OutboxOp } from '../store/syncState.js';
import { refetchableTransaction } from '../store/tx.js';
import type { TopPass } from './pushPass.js';
import { withSent, writtenRecords } from './sentBase.js';

/**
 * The end of a record's push stopped after the server took some of its writes (`p.sent`): a
 * demotion, a failure, a timeout. They are done, but the server's copy is not applied here (it
 * would act for a user who may no longer, or it is not known). The base still takes what the
 * server now holds in the fields written: left behind, it would make the next edit of such a
 * field a conflict with our own value sent before. From `copy`, the server's copy after those
 * writes, when known; else as they were sent (sentBase.ts). The rest waits for the next pull.
 */
export function settleCut(p: TopPass, dataset: string, copy: OdrRecord | null): void {
  const x = p.x;
  const topR = x.state.remoteOf(p.top);
  const base = topR ? x.state.base(topR) : null;
  const remoteOf = (u: string) => x.state.remoteOf(u);
  // Read before the transaction, from the render cache (pushSettle.ts does the same).
  const local = base && !copy ? x.localRecord(p.top) : null;
  refetchableTransaction(x.db, () => {
    for (const op of p.sent) x.state.done(op);
    if (!base) return;
    // A superseded option write sent nothing: the server holds what the merge took from it.
    const sent = copy ? p.sent : p.sent.filter((op) => !p.superseded.has(op.id));
    x.state.setBase(copy ? withWritten(base, copy, sent, remoteOf) : withSent(base, sent, local, remoteOf, x));
  });
}

/**
 * The server's copy after the writes of a push cut between two operations: the last sent one's
 * answer when it is that copy, else read again after a demotion (the read acts for no one; the
 * server took the writes, it is only asked what it holds). Null where none is to be had: a
 * failure (the server unreachable) or a record gone there.
 */
export async function copyAfterCut(p: TopPass, answer: unknown, cause: unknown): Promise<OdrRecord | null> {
  const x = p.x;
  const topR = x.state.remoteOf(p.top);
  if (!topR || !p.sent.length) return null;
  if ((answer as { record_uuid?: unknown } | undefined)?.record_uuid === topR) return normalizeRecord(answer, x.types);
  if (!(cause instanceof RightLost)) return null;
  try {
    return await x.remote.record(topR, x.types);
  } catch {
    return null; // no copy: settleCut takes the values as sent (sentBase.ts)
  }
}

/** `base` with the written fields (and public dates) as `copy` has them; all else as it was. */
function withWritten(
  base: OdrRecord,
  copy: OdrRecord,
  sent: readonly OutboxOp[],
  remoteOf: (local: string) => string | null | undefined,
): OdrRecord {
  const out = structuredClone(base);
  for (const { op, remote, mine } of writtenRecords(out, sent, remoteOf)) {
    const theirs = findRecord(copy, remote);
    if (!theirs) continue; // gone from the server's copy: the next pull says what became of it
    if (op.op === 'public') {
      mine._record_metadata = { ...mine._record_metadata, _public_date: theirs._record_metadata._public_date };
      continue;
    }
    const entry = theirs.fields.find((f) => f.field_uuid === op.field_uuid);
    const at = mine.fields.findIndex((f) => f.field_uuid === op.field_uuid);
    // In its place, so a base that now equals the server's copy is seen to (unchangedSinceBase).
    if (entry && at >= 0) mine.fields[at] = structuredClone(entry);
    else if (entry) mine.fields.push(structuredClone(entry));
    else if (at >= 0) mine.fields.splice(at, 1);
  }
  return out;
}
