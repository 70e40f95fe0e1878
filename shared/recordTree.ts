import type { OdrRecord } from './schemas/record.js';

/** The record of `uuid` in a record tree (the top itself or any descendant). */
export function findRecord(rec: OdrRecord, uuid: string): OdrRecord | undefined {
  if (rec.record_uuid === uuid) return rec;
  for (const c of rec.records ?? []) {
    const f = findRecord(c, uuid);
    if (f) return f;
  }
  return undefined;
}
