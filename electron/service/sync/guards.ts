import type { OdrRecord } from '../../../shared/schemas/record.js';
import { findRecord } from '../../../shared/recordTree.js';
import type { OutboxOp } from '../store/syncState.js';
import { fieldStates } from './recordFields.js';

/**
 * What a guarded write expects the server to hold: a value (a Boolean's as 0 or 1), a selection
 * (uuids), or a record's public date.
 */
export type Guard = { value: string | number | null } | { selection: string[] } | { publicDate: string };

/** The operations a guard can stand for. */
export type GuardedOp = Extract<OutboxOp, { op: 'value' | 'option' | 'public' }>;

/**
 * The name a remote gives the kind of write `op` is in its GUARDED_WRITES_HEADER: an odr-desktop
 * that guards only values and options (an older one) says just those, and its Boolean and
 * public-date writes are read first. `boolean`: whether a field is a Boolean.
 */
export function guardKind(op: OutboxOp, boolean: (field: string) => boolean): string {
  if (op.op === 'public') return 'public_date';
  if (op.op === 'value' && boolean(op.field_uuid)) return 'boolean';
  return op.op;
}

const guardable = (op: OutboxOp): op is GuardedOp => op.op === 'value' || op.op === 'option' || op.op === 'public';

/** Where `held` and `after` keep what a write left: `record|field`, a public date's `record|`. */
export const guardKey = (op: GuardedOp, remoteRecord: string) => `${remoteRecord}|${op.op === 'public' ? '' : op.field_uuid}`;

/**
 * The guard a value, option or public-date write can carry instead of a fresh read of the record
 * (docs/sync.md §5): the field (or date) as the base has it, so the server writes only while
 * nothing changed there since, the check the read was for (`pushConflict`, `publicConflict`:
 * unchanged since the base, no conflict), made in the server's own write transaction. `after`:
 * selections this pass's own guarded writes left (by guardKey; null: not known, read first). None
 * (undefined) where the read stays: no base, a "keep mine" (`over`: it is checked against the
 * server value it was chosen against, which only a read shows), a record the base lacks, anything
 * else than a value, an option or a public date.
 */
export function guardFor(
  op: OutboxOp,
  remoteRecord: string,
  base: OdrRecord | null,
  after: ReadonlyMap<string, string[] | null>,
): Guard | undefined {
  if (!base || !guardable(op) || op.payload.over !== undefined) return undefined;
  const key = guardKey(op, remoteRecord);
  if (after.has(key)) {
    const left = after.get(key);
    return left && op.op === 'option' ? { selection: left } : undefined;
  }
  return fieldGuard(op, key, remoteRecord, base);
}

/**
 * The guard of a write sent after a read of the record (a refused guard, a "keep mine", a first
 * write read early): the field as that read showed it, or as this pass's own writes since left it
 * (`held`), so nothing changed there between the check and the write goes over unseen.
 */
export function guardFromRead(op: OutboxOp, remoteRecord: string, fresh: OdrRecord, held: ReadonlyMap<string, Guard>): Guard | undefined {
  if (!guardable(op)) return undefined;
  const key = guardKey(op, remoteRecord);
  return held.get(key) ?? fieldGuard(op, key, remoteRecord, fresh);
}

function fieldGuard(op: GuardedOp, key: string, remoteRecord: string, base: OdrRecord): Guard | undefined {
  if (op.op === 'public') {
    const date = findRecord(base, remoteRecord)?._record_metadata._public_date;
    return date ? { publicDate: date } : undefined;
  }
  const entry = fieldStates(base).get(key)?.entry;
  if (op.op === 'value') {
    // A Boolean: checked (1) or not (0), as the server compares it.
    if (entry?.selected !== undefined) return { value: Number(entry.selected) ? 1 : 0 };
    if (entry && (entry.value === undefined || entry.values || entry.tags)) return undefined;
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
