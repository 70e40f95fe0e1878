import { canRead } from './access.js';
import type { Domain } from './domain.js';
import type { ServiceEvents } from './events.js';
import { canViewDatatype, seesAll } from './permissions.js';
import type { User } from './users.js';

export type RecordsEvent = ServiceEvents['records'][0];

/**
 * What one event-stream subscriber may learn from a `records` event, by the read gate of
 * domain/access.ts: nothing about a dataset they may not see; every uuid when they see all of
 * it (one check per event); otherwise only the records they may read, checked one by one. A
 * record that no longer exists is named only to those who see all (a deleted private record
 * stays unnamed); the event itself still goes out, so a table that lost a record refreshes.
 */
export function recordsEventFor(d: Domain, user: User, e: RecordsEvent): RecordsEvent | null {
  const dt = d.schema().datatypesByUuid.get(e.datasetUuid);
  if (!dt) return user.isSuper ? e : null;
  if (!canViewDatatype(user, dt, d.now())) return null;
  if (seesAll(user, dt)) return e;
  const recordUuids = e.recordUuids.filter((uuid) => {
    const rec = d.store.byUuid(uuid);
    return rec !== undefined && canRead(d, user, rec);
  });
  return { datasetUuid: e.datasetUuid, recordUuids };
}
