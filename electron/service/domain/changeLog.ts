import type { Ctx } from './context.js';
import { changeLogStore, type ChangeOrigin } from '../store/changeLog.js';

export type { ChangeOrigin };

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
  private readonly rows: ReturnType<typeof changeLogStore>;
  private readonly ctx: Ctx;
  /** Set by the sync engine while it applies pulled changes. */
  origin: ChangeOrigin = 'local';

  constructor(ctx: Ctx) {
    this.ctx = ctx;
    this.rows = changeLogStore(ctx.db);
  }

  /** Runs `fn` with its change-log rows marked as from `origin` (sync's own writes are never pushed back). */
  as<T>(origin: ChangeOrigin, fn: () => T): T {
    const before = this.origin;
    this.origin = origin;
    try {
      return fn();
    } finally {
      this.origin = before;
    }
  }

  append(at: string, c: Change): void {
    // Every mutation passes here, in its own transaction: the one place the rendered-record
    // cache hears of changes, so no route or write path can forget to tell it.
    const tree = c.topRecordUuid ?? c.recordUuid;
    if (tree) this.ctx.renders.dropTop(tree);
    else this.ctx.renders.clear();
    this.rows.append({
      at,
      userId: c.userId,
      op: c.op,
      datasetUuid: c.datasetUuid ?? null,
      recordUuid: c.recordUuid ?? null,
      topRecordUuid: c.topRecordUuid ?? null,
      fieldUuid: c.fieldUuid ?? null,
      itemUuid: c.itemUuid ?? null,
      old: c.old === undefined ? null : JSON.stringify(c.old),
      new: c.new === undefined ? null : JSON.stringify(c.new),
      origin: this.origin,
    });
  }
}
