import type { StorageKind, StoredValue } from '../../../../shared/fieldTypes.js';

/**
 * A stored value as compared for "does the record still hold it" (a guarded write, a batch
 * undo): empty, unchecked and absent are one state, and a decimal kept as typed ("1.50") is the
 * same number without its trailing zeros. A pull may rewrite 1.5 as "1.50"; that is no change.
 */
export function heldValue(storage: StorageKind, v: StoredValue | undefined): string | null {
  if (v === undefined || v === null || v === '' || (storage === 'boolean' && Number(v) === 0)) return null;
  const s = String(v);
  return storage === 'decimal' && s.includes('.') && !/e/i.test(s) ? s.replace(/\.?0+$/, '') : s;
}

/** Whether two stored values are the same state of a field of this storage. */
export const sameHeld = (storage: StorageKind, a: StoredValue | undefined, b: StoredValue | undefined): boolean =>
  heldValue(storage, a) === heldValue(storage, b);
