import { PRIVATE_DATE, isPublicAt } from '../../../shared/dates.js';

// Who may read a record, row by row (docs/permissions: the README's permission model). A viewer
// who administers the dataset or holds a view, edit or admin role on it reads everything and a viewer who may not see the dataset reads
// nothing: both are decided above the rows (domain/permissions.ts). Between the two, a record is
// readable when the viewer created it or it is public now. The rule is written twice here, once
// for rows already in hand and once as SQL for lists, searches and stats that filter in the
// database; test/unit/visibility.test.ts runs both over the same rows and requires they agree.

/** The columns the row rule reads. */
export interface VisibilityFacts {
  created_by: number | null;
  public_date: string;
}

/** The row rule in TypeScript. */
export const rowVisibleTo = (r: VisibilityFacts, viewerId: number, now: string): boolean =>
  r.created_by === viewerId || isPublicAt(r.public_date, now);

/**
 * The same rule as an SQL condition over the records table aliased `alias`, reading the named
 * parameters @user (viewer id) and @now (timestamp).
 */
export const rowVisibleSql = (alias: string): string =>
  `(${alias}.created_by = @user OR (${alias}.public_date != '${PRIVATE_DATE}' AND ${alias}.public_date <= @now))`;
