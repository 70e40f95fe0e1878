import type { OdrRecord } from '../../../shared/schemas/record.js';
import type { OutboxOp } from '../store/syncState.js';
import type { EngineContext } from './engineContext.js';
import { guardFor, guardKey, guardKind, selectionAfter, type Guard, type GuardedOp } from './guards.js';
import { superseded, type TopPass, type WriteOutcome } from './pushPass.js';
import { guardedPublicDate } from './pushPublicDate.js';
import { RemoteError } from './remoteClient.js';

/** Whether the remote said it guards this kind of write (its last answer's header, guards.ts). */
export const isGuarded = (x: EngineContext, op: OutboxOp): op is GuardedOp =>
  (op.op === 'value' || op.op === 'option' || op.op === 'public') && x.remote.guards.has(guardKind(op, x.boolean));

/**
 * A server that guards its writes checks the field against the base itself, in its write
 * transaction: no read first (docs/sync.md §5). Undefined where the write needs the read after all:
 * no guard to send (guardFor), or refused (409: it changed there since), read and checked as on
 * any server, so a conflict is found as it always was.
 */
export async function pushGuardedFirst(
  p: TopPass,
  op: GuardedOp,
  recR: string,
  topR: string,
  base: OdrRecord | null,
): Promise<WriteOutcome | undefined> {
  const x = p.x;
  // Not once this pass read the record, nor for the copy read early: the read already paid for the check.
  const guard = !p.fresh && !(p.early && op === p.list[0]) && isGuarded(x, op) ? guardFor(op, recR, base, p.guarded) : undefined;
  if (!guard) return undefined;
  if (op.op === 'option' && superseded(op, x.localRecord(p.top))) return 'superseded';
  const key = guardKey(op, recR);
  try {
    p.answer = await guardedWrite(x, op, recR, guard, p.held);
    const left = p.held.get(key);
    p.guarded.set(key, left && 'selection' in left ? left.selection : null);
    return 'written';
  } catch (e) {
    // 404 on a child: the server may have deleted it. Read and checked like a 409.
    // 400: a guard the field's current type refuses (its type changed there since the
    // base), a refusal, not the real servers' "400 on a child is done" (pushReadFirst.ts).
    const childGone = e instanceof RemoteError && e.kind === 'gone' && recR !== topR;
    if (!(e instanceof RemoteError && (e.status === 409 || e.status === 400)) && !childGone) throw e;
    p.guarded.set(key, null);
    p.held.delete(key); // the read that follows says what it holds now
    return undefined;
  }
}

/**
 * A value, option or public-date write that holds only while the server has what `guard` says.
 * Never under the real servers' "400 on a child is done" rule: only an odr-desktop remote takes
 * guards, and there a 400 is a refusal. `held` learns what the write left.
 */
export async function guardedWrite(
  x: EngineContext,
  op: GuardedOp,
  recR: string,
  guard: Guard,
  held: Map<string, Guard>,
): Promise<unknown> {
  const key = guardKey(op, recR);
  if ('value' in guard && op.op === 'value') {
    const value = op.payload.value === null ? '' : op.payload.value;
    const answer = await x.remote.call((c) => c.setValue(recR, op.field_uuid, value, guard.value), true);
    held.set(key, { value });
    return answer;
  }
  if ('selection' in guard && op.op === 'option') {
    const on = op.payload.on;
    const answer = await x.remote.call((c) => c.setOption(recR, op.field_uuid, op.item_uuid, on, guard.selection), true);
    held.set(key, { selection: selectionAfter(guard.selection, op.item_uuid, on, x.single(op.field_uuid)) });
    return answer;
  }
  if ('publicDate' in guard && op.op === 'public') return guardedPublicDate(x, op, recR, guard.publicDate, key, held);
  throw new Error(`no guarded write for a ${op.op} operation`);
}

/** Whether the field (or date), as `guard` says the server holds it, already has what `op` writes. */
export function holdsOurs(guard: Guard, op: GuardedOp): boolean {
  if (op.op === 'public') return 'publicDate' in guard && !!op.payload.public_date && guard.publicDate === op.payload.public_date;
  if (op.op === 'value') return 'value' in guard && String(guard.value ?? '') === String(op.payload.value ?? '');
  return 'selection' in guard && guard.selection.includes(op.item_uuid) === op.payload.on;
}
