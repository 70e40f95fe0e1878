import type { OdrRecord } from '../../../shared/schemas/record.js';
import type { RecordImporter } from '../domain/import/importRecords.js';
import type { OutboxOp } from '../store/syncState.js';
import type { EngineContext } from './engineContext.js';
import type { Guard } from './guards.js';
import { selectedHere } from './merge.js';
import type { Puller } from './pull.js';

/** One top-level record's push: its operations in order, and what they read, sent and left. */
export interface TopPass {
  readonly x: EngineContext;
  readonly puller: Puller;
  readonly importer: RecordImporter;
  readonly top: string;
  /** Grows while it runs: a converge adds the operations it stands for. */
  readonly list: OutboxOp[];
  /** The first operation's server copy, read while the templates were (push.ts). */
  readonly early: Promise<unknown> | null;
  /** The server's copy read this pass, until a write that changes it other than by field. */
  fresh: OdrRecord | null;
  /** The answer to the last write, when it is the top-level record: the server's copy after our writes, without reading it again. */
  answer: unknown;
  /**
   * Operations the server has: marked done with its copy after them (pushSettle.ts); where the
   * push is cut before that, done with their fields taken into the base (pushCut.ts).
   */
  readonly sent: OutboxOp[];
  /** Ids of the `sent` operations that were superseded (WriteOutcome): the server holds the other state. */
  readonly superseded: Set<number>;
  /** Selections this record's guarded option writes left on the server (guards.ts). */
  readonly guarded: Map<string, string[] | null>;
  /** What this record's guarded writes left on the server, by `record|field`. */
  readonly held: Map<string, Guard>;
}

/**
 * How a value, option or public-date write ended. written: sent (counted as pushed); already:
 * the server already has it (done, not counted); superseded: a merge here took the server's
 * change over it (done, not counted, and not what the server holds); waits: stays pending for
 * the next pass; conflict: parked with its conflict.
 */
export type WriteOutcome = 'written' | 'already' | 'superseded' | 'waits' | 'conflict';

/**
 * An option write superseded here by a write of the sync itself (a merge applied the server's
 * change to this option, a conflict kept theirs): sending it would undo that change unseen.
 */
export const superseded = (op: OutboxOp, local: OdrRecord | null): boolean =>
  op.op === 'option' && selectedHere(local, op.record_uuid, op.field_uuid, op.item_uuid) !== op.payload.on;
