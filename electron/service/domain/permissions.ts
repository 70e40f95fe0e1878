import { isPublicAt } from '../../../shared/dates.js';
import type { DatasetRole } from '../../../shared/schemas/users.js';
import type { DatatypeInfo } from './schemaCache.js';
import type { User } from './users.js';
import { rowVisibleTo, type VisibilityFacts } from '../store/visibility.js';

// The local permission model (documented in the README). Super-users may do everything. A
// top-level dataset's owner and its `admin` role holders administer it (template, dataset,
// deletion, granting roles). Roles, weakest first: `view_only` sees a non-public dataset and its
// public records; `view` also every record, field and file of it; `edit` also writes every
// record. Everyone else sees public datasets and public records plus what they created, and
// edits or deletes only what they created. A read-only role (`view_only`, `view`) writes
// nothing: no new records, and no edits even to records its holder made before the role was
// set. A child datatype follows its top-level dataset.

const RANK: Record<DatasetRole, number> = { view_only: 1, view: 2, edit: 3, admin: 4 };

/** The caller's role on the dataset (0: none). */
const rank = (u: User, dt: DatatypeInfo): number => {
  const r = u.roles.get(dt.top.id);
  return r ? RANK[r] : 0;
};

export const isAdmin = (u: User, dt: DatatypeInfo) =>
  u.isSuper || (dt.top.ownerId !== null && dt.top.ownerId === u.id) || rank(u, dt) >= RANK.admin;

/** Reads every record, field and file of the dataset, public or not. */
export const seesAll = (u: User, dt: DatatypeInfo) => isAdmin(u, dt) || rank(u, dt) >= RANK.view;

export const canViewDatatype = (u: User, dt: DatatypeInfo, now: string) =>
  isAdmin(u, dt) || rank(u, dt) >= RANK.view_only || isPublicAt(dt.top.publicDate, now);

/** Edits every record of the dataset (admins and the `edit` role): e.g. a CSV import into it. */
export const editsAll = (u: User, dt: DatatypeInfo) => isAdmin(u, dt) || rank(u, dt) >= RANK.edit;

/** A read-only role (`view_only`, `view`): it grants reading and takes away every write, own records included. */
const readOnly = (u: User, dt: DatatypeInfo) => !isAdmin(u, dt) && rank(u, dt) > 0 && rank(u, dt) < RANK.edit;

/** Adds top-level records: editors and admins, and users with no role on a dataset they may see. */
export const canAddRecords = (u: User, dt: DatatypeInfo, now: string) =>
  editsAll(u, dt) || (!readOnly(u, dt) && canViewDatatype(u, dt, now));

/** `top` is the record's top-level record (itself for a top-level record). */
export const canEditRecord = (u: User, dt: DatatypeInfo, rec: VisibilityFacts, top: VisibilityFacts) =>
  editsAll(u, dt) || (!readOnly(u, dt) && (rec.created_by === u.id || top.created_by === u.id));

/** The record-read rule; its row part (creator or public now) is store/visibility.ts's, shared with SQL. */
export const canViewRecord = (u: User, dt: DatatypeInfo, rec: VisibilityFacts, top: VisibilityFacts, now: string) =>
  canEditRecord(u, dt, rec, top) || seesAll(u, dt) || (canViewDatatype(u, dt, now) && rowVisibleTo(rec, u.id, now));
