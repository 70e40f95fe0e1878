import { z } from 'zod';
import { Int } from './common.js';

// GET /local/records/{uuid}/history: what changed in a record and its child records, newest
// first, from the change log. Values are as stored (option and tag uuids, UTC timestamps); the
// renderer shows them the way the record pane shows them (option names, local dates).

/** The change-log operations history reports (record deletes and imports carry no field change). */
export const HISTORY_OPS = [
  'value.set',
  'option.select',
  'option.unselect',
  'tag.select',
  'tag.unselect',
  'file.add',
  'file.delete',
  'file.meta',
  'record.public',
  'record.create',
] as const;

export const HistoryEntry = z.object({
  seq: Int,
  /** UTC `YYYY-MM-DD HH:MM:SS`. */
  at: z.string(),
  op: z.enum(HISTORY_OPS),
  record_uuid: z.string(),
  field_uuid: z.string().nullable(),
  /** The option, tag or file the change is about. */
  item_uuid: z.string().nullable(),
  old: z.unknown(),
  new: z.unknown(),
  /** `local` (made here), `sync` (pulled from a remote) or `import`. */
  origin: z.string(),
  /** Null when the user is no longer known here (a change pulled from a remote by an unknown user). */
  user: z.object({ email: z.string(), name: z.string() }).nullable(),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

export const RecordHistory = z.object({
  record_uuid: z.string(),
  entries: z.array(HistoryEntry),
  /** True when more entries are older than the oldest one answered (ask again with `before`). */
  more: z.boolean(),
});
export type RecordHistory = z.infer<typeof RecordHistory>;

export const MAX_HISTORY = 500;

/** Query of the history route (strings, as a URL carries them; the route checks the ranges). */
export const HistoryQuery = z.object({
  /** Only this field's changes. */
  field: z.string().min(1).max(64).optional(),
  /** At most this many entries (1 … 500, default 200). */
  limit: z.string().regex(/^\d+$/, 'limit must be a whole number').optional(),
  /** Only entries older than this change-log sequence number (the next page). */
  before: z.string().regex(/^\d+$/, 'before must be a whole number').optional(),
});
