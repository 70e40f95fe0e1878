import type { Ctx } from './context.js';
import { transaction } from '../store/tx.js';

/**
 * Runs `fn` in one SQLite transaction (IMMEDIATE, so concurrent writers queue instead of
 * failing at commit). When it fails after changing a template, the schema cache is dropped: it
 * may have been reloaded from rows the rollback took back. A refused write that changed no
 * template (a 400, a 409) keeps it, and with it every cached render (renderCache entries
 * remember their schema object).
 */
export function tx<T>(ctx: Ctx, fn: () => T): T {
  const changes = ctx.schema.changes;
  try {
    return transaction(ctx.db, fn, 'immediate');
  } catch (e) {
    if (ctx.schema.changes !== changes) ctx.schema.invalidate();
    throw e;
  }
}
