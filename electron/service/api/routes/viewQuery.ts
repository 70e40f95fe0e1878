import type { Context } from 'hono';
import type { AppEnv } from '../auth.js';
import { badRequest } from '../../domain/errors.js';
import { parseFilters } from '../../domain/search/viewFilters.js';

/** The table view a request names (`q`, `filters`, `sort`, `dir`): the record table, uuids and position routes read it alike. */
export function viewOf(c: Context<AppEnv>) {
  const dir = c.req.query('dir');
  if (dir !== undefined && dir !== 'asc' && dir !== 'desc') throw badRequest('dir must be "asc" or "desc"');
  return {
    q: c.req.query('q'),
    filters: parseFilters(c.req.query('filters')),
    sort: c.req.query('sort') || undefined,
    dir: dir as 'asc' | 'desc' | undefined,
  };
}
