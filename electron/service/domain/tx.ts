import type { Ctx } from './context.js';
import { transaction } from '../store/tx.js';

/**
 * Runs `fn` in one SQLite transaction (IMMEDIATE, so concurrent writers queue instead of
 * failing at commit). On failure the schema cache is dropped, since it may have been reloaded
 * from rows the rollback took back.
 */
export function tx<T>(ctx: Ctx, fn: () => T): T {
  try {
    return transaction(ctx.db, fn, 'immediate');
  } catch (e) {
    ctx.schema.invalidate();
    throw e;
  }
}
