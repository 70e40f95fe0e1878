import { z } from 'zod';
import { Int } from './common.js';

// POST /local/datasets/{uuid}/batch: one change across many top-level records, in one transaction,
// answering what each record held before so the whole batch can be undone as one step.

/** The most records one batch request takes; the UI sends larger selections in chunks of this. */
export const MAX_BATCH = 5000;

const Uuid = z.string().min(1).max(64);

/** What a record holds in what a batch touches. */
const BatchState = z.object({
  /** Scalar fields: the stored value, null when the field was empty. */
  value: z.union([z.string(), z.number(), z.null()]).optional(),
  /** Option and tag fields: the uuids selected. */
  selected: z.array(Uuid).optional(),
  /** Public status: the stored public date (UTC). */
  public_date: z.string().optional(),
});

/** What a record held before a batch: enough to put it back. */
export const BatchBefore = BatchState.extend({
  record: Uuid,
  /**
   * What the batch left there: a restore puts the earlier state back only while the record still
   * holds this (else it is skipped as changed since), so a newer value is never overwritten.
   */
  after: BatchState.optional(),
});
export type BatchBefore = z.infer<typeof BatchBefore>;

export const BatchChange = z.discriminatedUnion('kind', [
  /** The same value in one scalar field ("" clears it). */
  z.object({ kind: z.literal('value'), field: Uuid, value: z.union([z.string(), z.number()]) }),
  /** One option or tag selected or unselected. */
  z.object({ kind: z.literal('option'), field: Uuid, option: Uuid, on: z.boolean() }),
  /** Public (now, keeping the first public date of records already public) or private. */
  z.object({ kind: z.literal('public'), public: z.boolean() }),
  /** Undo: each record's earlier state, as a batch answered it. */
  z.object({ kind: z.literal('restore'), field: Uuid.optional(), items: z.array(BatchBefore).min(1).max(MAX_BATCH) }),
]);
export type BatchChange = z.infer<typeof BatchChange>;

export const BatchRequest = z.object({
  records: z.array(Uuid).max(MAX_BATCH).default([]),
  change: BatchChange,
});
export type BatchRequest = z.infer<typeof BatchRequest>;

/** A record a restore left alone, and why: deleted since, or changed since the batch. */
export const BatchSkipped = z.object({ record: Uuid, reason: z.enum(['deleted', 'changed']), message: z.string() });
export type BatchSkipped = z.infer<typeof BatchSkipped>;

export const BatchResult = z.object({
  changed: Int,
  before: z.array(BatchBefore),
  /** Restore only: records it could not put back; the others are restored. */
  skipped: z.array(BatchSkipped).optional(),
});
export type BatchResult = z.infer<typeof BatchResult>;
