import type { OdrClient } from '../../../shared/client/odrClient.js';
import type { OdrRecord } from '../../../shared/schemas/record.js';
import { findRecord } from '../../../shared/recordTree.js';
import type { OutboxOp } from '../store/syncState.js';
import type { EngineContext } from './engineContext.js';
import type { Guard } from './guards.js';
import { publicConflict } from './merge.js';

type PublicOp = Extract<OutboxOp, { op: 'public' }>;

/** The public-date form; `expected`: the date the server must still hold (a guarded write). */
function publicForm(x: EngineContext, op: PublicOp, recR: string, expected?: string): Parameters<OdrClient['setPublic']>[0] {
  const date = op.payload.public_date;
  return {
    user_email: x.remoteUser,
    dataset_uuid: op.dataset_uuid,
    record_uuid: recR,
    ...(date ? { public_date: date } : {}),
    ...(expected !== undefined ? { expected_public_date: expected } : {}),
  };
}

/** The public date written as it is, checked (or not) by a read before it. */
export const plainPublicDate = (x: EngineContext, op: PublicOp, recR: string) => (c: OdrClient) => c.setPublic(publicForm(x, op, recR));

/** The public date written while the server still holds `expected`; `held` learns what it left. */
export async function guardedPublicDate(
  x: EngineContext,
  op: PublicOp,
  recR: string,
  expected: string,
  key: string,
  held: Map<string, Guard>,
): Promise<OdrRecord> {
  const answer = await x.remote.call((c) => c.setPublic(publicForm(x, op, recR, expected)), true);
  // No date means "now", which only the server's answer (the record written) tells.
  const left = answer._record_metadata._public_date;
  if (left) held.set(key, { publicDate: left });
  else held.delete(key);
  return answer;
}

/** Whether the date changed on the server too since the base, to another date than ours. */
export function publicDateConflict(op: PublicOp, recR: string, fresh: OdrRecord, base: OdrRecord | null, local: OdrRecord | null) {
  return publicConflict({
    record: op.record_uuid,
    fresh: findRecord(fresh, recR),
    base: base ? findRecord(base, recR) : undefined,
    local: local ? findRecord(local, op.record_uuid) : undefined,
    over: op.payload.over,
  });
}
