import type { OdrClient } from '../../../shared/client/odrClient.js';
import { normalizeRecord } from '../../../shared/legacy.js';
import { findRecord } from '../../../shared/recordTree.js';
import type { OdrRecord } from '../../../shared/schemas/record.js';
import type { EngineContext } from './engineContext.js';
import { guardFromRead, type GuardedOp } from './guards.js';
import { pushConflict } from './merge.js';
import { guardedWrite, holdsOurs, isGuarded } from './pushGuarded.js';
import { superseded, type TopPass, type WriteOutcome } from './pushPass.js';
import { plainPublicDate, publicDateConflict } from './pushPublicDate.js';
import { childWriteDone, RemoteError } from './remoteClient.js';

/**
 * A value, option or public-date write checked against a fresh server copy first: changed there
 * since the base (to something else than ours), it is a conflict and waits for the user's choice.
 */
export async function pushReadFirst(p: TopPass, op: GuardedOp, recR: string, topR: string, base: OdrRecord | null): Promise<WriteOutcome> {
  const x = p.x;
  // Read before any write of this pass: it stands only for the first operation's copy.
  if (!p.fresh && p.early && op === p.list[0]) p.fresh = normalizeRecord(await p.early, x.types);
  const fresh = (p.fresh ??= await x.remote.record(topR, x.types));
  // A child the server deleted: its edit is no change of a field there. It stays unsent;
  // the merge of the server's copy that ends the record's push holds it in a deleted-child conflict.
  if (recR !== topR && base && findRecord(base, recR) && !findRecord(fresh, recR)) return 'waits';
  const local = x.localRecord(p.top);
  if (superseded(op, local)) return 'superseded';
  const c =
    op.op === 'public'
      ? publicDateConflict(op, recR, fresh, base, local)
      : pushConflict({
          record: op.record_uuid,
          field: op.field_uuid,
          // Several options: each one is its own set operation (docs/sync.md §5).
          ...(op.op === 'option' && !x.single(op.field_uuid) ? { item: op.item_uuid } : {}),
          fresh,
          remoteKey: `${recR}|${op.field_uuid}`,
          base,
          local,
          over: op.payload.over,
        });
  if (c) {
    x.state.recordConflict(op.dataset_uuid, p.top, c);
    x.state.park(op, 'changed on the server too: see conflicts', 'conflict');
    return 'conflict';
  }
  // A server that guards its writes gets this one guarded with the field as just read: no
  // window between the check and the write. Refused again, it changed there once more: the
  // operation waits for the next pass (one more read and write per pass, no loop here).
  const fenced = isGuarded(x, op) ? guardFromRead(op, recR, fresh, p.held) : undefined;
  if (fenced) {
    if (holdsOurs(fenced, op)) return 'already'; // a write would only go over a change made since
    try {
      p.answer = await guardedWrite(x, op, recR, fenced, p.held);
    } catch (e) {
      if (e instanceof RemoteError && e.status === 409) return 'waits';
      throw e;
    }
    return 'written';
  }
  p.answer = await childWrite(x, op, p.top, plainWrite(x, op, recR));
  return 'written';
}

function plainWrite(x: EngineContext, op: GuardedOp, recR: string): (c: OdrClient) => Promise<unknown> {
  if (op.op === 'value') {
    const value = op.payload.value;
    return (c) => c.setValue(recR, op.field_uuid, value === null ? '' : value);
  }
  if (op.op === 'option') {
    const on = op.payload.on;
    return (c) => c.setOption(recR, op.field_uuid, op.item_uuid, on);
  }
  return plainPublicDate(x, op, recR);
}

/**
 * A write on a record. Real servers apply value, option and publish calls on a child record
 * but answer 400 "Only permitted on top-level datarecords" (docs/odr-server.md §9.4): for a child
 * that answer counts as done, and the top-level record read afterwards shows what the server
 * holds. Any other 400 is a refusal that wrote nothing: it is parked with the server's words,
 * never taken for done (the base would then claim a value the server does not hold, and the
 * next pull would overwrite ours without a conflict).
 */
async function childWrite(x: EngineContext, op: GuardedOp, top: string, fn: (c: OdrClient) => Promise<unknown>): Promise<unknown> {
  try {
    return await x.remote.call(fn, true);
  } catch (e) {
    if (op.record_uuid !== top && childWriteDone(e)) return undefined;
    throw e;
  }
}
