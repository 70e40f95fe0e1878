import type { OdrRecord } from '../../../shared/schemas/record.js';
import type { OutboxOp } from '../store/syncState.js';
import { fieldStates } from './recordFields.js';

/** What a guarded write expects the server's field to hold: a value, or a selection (uuids). */
export type Guard = { value: string | number | null } | { selection: string[] };

/**
 * The guard a value or option write can carry instead of a fresh read of the record
 * (docs/sync.md §5): the field as the base has it, so the server writes only while nothing
 * changed there since, the check the read was for (`pushConflict`: unchanged since the base, no
 * conflict), made in the server's own write transaction. `after`: selections this pass's own
 * guarded writes left (by `record|field` on the server; null: not known, read first). None
 * (undefined) where the read stays: no base, a "keep mine" (`over`: it is checked against the
 * server value it was chosen against, which only a read shows), a Boolean (its value is no
 * scalar the guard compares), anything else than a value or an option.
 */
export function guardFor(
  op: OutboxOp,
  remoteRecord: string,
  base: OdrRecord | null,
  after: ReadonlyMap<string, string[] | null>,
): Guard | undefined {
  if (!base || (op.op !== 'value' && op.op !== 'option') || op.payload.over !== undefined) return undefined;
  const key = `${remoteRecord}|${op.field_uuid}`;
  if (after.has(key)) {
    const left = after.get(key);
    return left && op.op === 'option' ? { selection: left } : undefined;
  }
  return fieldGuard(op, key, base);
}

/**
 * The guard of a write sent after a read of the record (a refused guard, a "keep mine", a first
 * write read early): the field as that read showed it, or as this pass's own writes since left it
 * (`held`), so nothing changed there between the check and the write goes over unseen.
 */
export function guardFromRead(op: OutboxOp, remoteRecord: string, fresh: OdrRecord, held: ReadonlyMap<string, Guard>): Guard | undefined {
  if (op.op !== 'value' && op.op !== 'option') return undefined;
  const key = `${remoteRecord}|${op.field_uuid}`;
  return held.get(key) ?? fieldGuard(op, key, fresh);
}

function fieldGuard(op: Extract<OutboxOp, { op: 'value' | 'option' }>, key: string, base: OdrRecord): Guard | undefined {
  const entry = fieldStates(base).get(key)?.entry;
  if (op.op === 'value') {
    if (entry && (entry.value === undefined || entry.selected !== undefined || entry.values || entry.tags)) return undefined;
    const v = entry?.value;
    return { value: v === undefined || v === null ? '' : v };
  }
  if (entry && !entry.values && !entry.tags) return undefined;
  return {
    selection: (entry?.values?.map((v) => v.template_radio_option_uuid) ?? entry?.tags?.map((t) => t.template_tag_uuid) ?? []).sort(),
  };
}

/** The selection an option write leaves once its guard held: `single`, a one-option field. */
export function selectionAfter(before: string[], item: string, on: boolean, single: boolean): string[] {
  if (on) return single ? [item] : [...new Set([...before, item])].sort();
  return before.filter((u) => u !== item);
}
