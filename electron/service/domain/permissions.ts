import { isPublicAt } from '../../../shared/dates.js';
import type { DatatypeInfo } from './schemaCache.js';
import type { User } from './users.js';
import { rowVisibleTo, type VisibilityFacts } from '../store/visibility.js';

// The local permission model (documented in the README): super-users may do everything; the
// owner of a top-level dataset administers it; other users see public datasets and public
// records plus what they created, and edit or delete only what they created.

export const isAdmin = (u: User, dt: DatatypeInfo) => u.isSuper || (dt.top.ownerId !== null && dt.top.ownerId === u.id);

export const canViewDatatype = (u: User, dt: DatatypeInfo, now: string) => isAdmin(u, dt) || isPublicAt(dt.top.publicDate, now);

/** `top` is the record's top-level record (itself for a top-level record). */
export const canEditRecord = (u: User, dt: DatatypeInfo, rec: VisibilityFacts, top: VisibilityFacts) =>
  isAdmin(u, dt) || rec.created_by === u.id || top.created_by === u.id;

/** The record-read rule; its row part (creator or public now) is store/visibility.ts's, shared with SQL. */
export const canViewRecord = (u: User, dt: DatatypeInfo, rec: VisibilityFacts, top: VisibilityFacts, now: string) =>
  canEditRecord(u, dt, rec, top) || (canViewDatatype(u, dt, now) && rowVisibleTo(rec, u.id, now));
