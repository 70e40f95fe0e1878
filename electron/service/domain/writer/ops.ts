import type { Domain } from '../domain.js';
import type { ServiceEvents } from '../events.js';
import { setOption, setValue } from '../records/ops.js';
import type { User } from '../users.js';

/** A record field edit the write worker runs: what the route parsed, and who acts. */
export type WriteOp =
  | { op: 'value'; user: User; record: string; field: string; value: string | number | boolean | null }
  | { op: 'option'; user: User; record: string; field: string; option: string; selected: boolean };

export type WriteRequest = WriteOp & { id: number };

/** What a committed op changed: the records' announcements, for the main thread to repeat. */
type RecordsChanged = ServiceEvents['records'][0];

export interface WriteDone {
  rid: number;
  announced: RecordsChanged[];
}

/** The worker's group-commit counters as of a reply (GroupCommit's, for tests and the bench). */
export interface CommitCounters {
  batches: number;
  operations: number;
  commitMs: number;
}

export type WriteReply = { id: number; counters: CommitCounters } & (
  ({ ok: true } & WriteDone) | { ok: false; /** The OdrError's, or 0 for any other failure. */ status: number; message: string }
);

/** Runs one op on the worker's domain (inside its group commit's savepoint). */
export function runWriteOp(d: Domain, m: WriteOp): WriteDone {
  const announced: RecordsChanged[] = [];
  const hear = (e: RecordsChanged) => announced.push(e);
  d.ctx.events.on('records', hear);
  try {
    const rec =
      m.op === 'value' ? setValue(d, m.user, m.record, m.field, m.value) : setOption(d, m.user, m.record, m.field, m.option, m.selected);
    return { rid: rec.rid, announced };
  } finally {
    d.ctx.events.off('records', hear);
  }
}
