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
 * writes it inside its own transaction; sync's outbox, per-field history and the rendered-record
 * cache's invalidation follow it.
 */
export class ChangeLog {
  private readonly insert: Statement;
  private readonly ctx: Ctx;
  /** Set by the sync engine while it applies pulled changes. */
  origin: ChangeOrigin = 'local';

  constructor(ctx: Ctx) {
    this.ctx = ctx;
    this.insert = ctx.db.prepare(
      `INSERT INTO change_log (at, user_id, op, dataset_uuid, record_uuid, top_record_uuid, field_uuid, item_uuid, old, new, origin)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  }

  append(at: string, c: Change): void {
    // Every mutation passes here, in its own transaction: the one place the rendered-record
    // cache hears of changes, so no route or write path can forget to tell it.
    const tree = c.topRecordUuid ?? c.recordUuid;
    if (tree) this.ctx.renders.dropTop(tree);
    else this.ctx.renders.clear();
    this.insert.run(
      at,
      c.userId,
      c.op,
      c.datasetUuid ?? null,
      c.recordUuid ?? null,
      c.topRecordUuid ?? null,
      c.fieldUuid ?? null,
      c.itemUuid ?? null,
      c.old === undefined ? null : JSON.stringify(c.old),
      c.new === undefined ? null : JSON.stringify(c.new),
      this.origin,
    );
  }
}
