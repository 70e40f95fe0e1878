import { forbidden, notFound } from './errors.js';
import { WHO } from './rights.js';
import { canEditRecord, canViewRecord } from './permissions.js';
import type { RecordStore } from '../store/records.js';
import type { RecordRow } from '../store/rows.js';
import type { VisibilityFacts } from '../store/visibility.js';
import type { DatatypeInfo, Schema } from './schemaCache.js';
import type { User } from './users.js';

/** What the gate reads (the Domain provides it; named here so domain.ts and this file do not import each other). */
export interface AccessView {
  store: Pick<RecordStore, 'topOf' | 'byUuid'>;
  now(): string;
  datatypeOf(rec: RecordRow): DatatypeInfo;
}
type Domain = AccessView;

// The one gate every record route passes BEFORE it looks at stored values. A right checked only
// when something would change lets a no-op write (the value already stored, an option already
// selected) answer 200 with the whole record: private values leak and can be confirmed by
// guessing. So reads need the read right and writes the edit right, whatever the payload.

/** What one may edit one may read; otherwise a child is readable only under a readable top. */
export function canRead(d: Domain, user: User, rec: RecordRow): boolean {
  const top = d.store.topOf(rec);
  const now = d.now();
  if (canEditRecord(user, d.datatypeOf(rec), rec, top)) return true;
  if (top !== rec && !canViewRecord(user, d.datatypeOf(top), top, top, now)) return false;
  return canViewRecord(user, d.datatypeOf(rec), rec, top, now);
}

/**
 * The read rule for top-level rows of any dataset, for `user` at `now`: search candidates, and
 * each chunk of a streamed list, which is tested again when it is read (api/routes/recordStream.ts).
 */
export function topReadable(
  schema: Pick<Schema, 'datatypes'>,
  user: User,
  now: string,
): (row: VisibilityFacts & { datatype_id: number }) => boolean {
  return (r) => {
    const dt = schema.datatypes.get(r.datatype_id);
    return dt !== undefined && canViewRecord(user, dt, r, r, now);
  };
}

export function canEdit(d: Domain, user: User, rec: RecordRow): boolean {
  return canEditRecord(user, d.datatypeOf(rec), rec, d.store.topOf(rec));
}

export function assertRead(d: Domain, user: User, rec: RecordRow): RecordRow {
  if (!canRead(d, user, rec)) throw forbidden(`You may not view record ${rec.uuid}: only ${WHO.viewsRecord} can.`);
  return rec;
}

/** Edit right; a caller who cannot even read the record is told nothing more than on a read. */
export function assertEdit(d: Domain, user: User, rec: RecordRow): RecordRow {
  assertRead(d, user, rec);
  if (!canEdit(d, user, rec)) throw forbidden(`You may not edit record ${rec.uuid}: only ${WHO.editsRecord} can.`);
  return rec;
}

/** 404 for an unknown uuid, 403 without the read right. */
export function readableRecord(d: Domain, user: User, uuid: string, thing = 'Datarecord'): RecordRow {
  const rec = d.store.byUuid(uuid);
  if (!rec) throw notFound(thing);
  return assertRead(d, user, rec);
}

/** 404 for an unknown uuid, 403 without the edit right. */
export function editableRecord(d: Domain, user: User, uuid: string, thing = 'Datarecord'): RecordRow {
  const rec = d.store.byUuid(uuid);
  if (!rec) throw notFound(thing);
  return assertEdit(d, user, rec);
}
