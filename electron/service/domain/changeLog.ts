import type { Statement } from 'better-sqlite3';
import type { Ctx } from './context.js';

/** Where a change came from: this user's edit, a sync pull, or an import (neither is pushed). */
export type ChangeOrigin = 'local' | 'sync' | 'import';

export interface Change {
  op: string;
  userId: number | null;
  datasetUuid?: string | null;
  recordUuid?: string | null;
  topRecordUuid?: string | null;
  fieldUuid?: string | null;
  itemUuid?: string | null;
  old?: unknown;
  new?: unknown;
}

/**
 * The append-only change log: entity, field, old and new value, who, when. Every mutation
 * writes it inside its own transaction; sync's outbox and per-field history read it.
 */
export class ChangeLog {
  private readonly insert: Statement;
  /** Set by the sync engine while it applies pulled changes. */
  origin: ChangeOrigin = 'local';

  constructor(ctx: Ctx) {
    this.insert = ctx.db.prepare(
      `INSERT INTO change_log (at, user_id, op, dataset_uuid, record_uuid, top_record_uuid, field_uuid, item_uuid, old, new, origin)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  }

  append(at: string, c: Change): void {
    this.insert.run(
      at, c.userId, c.op, c.datasetUuid ?? null, c.recordUuid ?? null, c.topRecordUuid ?? null,
      c.fieldUuid ?? null, c.itemUuid ?? null,
      c.old === undefined ? null : JSON.stringify(c.old), c.new === undefined ? null : JSON.stringify(c.new),
      this.origin,
    );
  }
}
