import { Hono, type Context } from 'hono';
import type { ViewPosition, ViewUuids } from '../../../../shared/schemas/selection.js';
import type { AppEnv } from '../auth.js';
import type { Domain } from '../../domain/domain.js';
import { badRequest } from '../../domain/errors.js';
import { int } from './localData.js';

/** Enough for every record of the largest dataset we plan for (100k) in one answer. */
const MAX_UUIDS = 200_000;

/** The table view a request names (`q`, `sort`, `dir`), as the record table route reads it. */
function view(c: Context<AppEnv>) {
  const dir = c.req.query('dir');
  if (dir !== undefined && dir !== 'asc' && dir !== 'desc') throw badRequest('dir must be "asc" or "desc"');
  return { q: c.req.query('q'), sort: c.req.query('sort') || undefined, dir: dir as 'asc' | 'desc' | undefined };
}

/**
 * What the UI's selection needs without loading records: the uuids of a stretch of the current
 * view (Shift-click ranges, select all) and where one record sits in it (scroll to a new record).
 */
export function localSelectionRoutes(d: Domain) {
  const app = new Hono<AppEnv>();

  app.get('/datasets/:uuid/record-uuids', (c) => {
    const dt = d.datatype(c.req.param('uuid'));
    const offset = int(c.req.query('offset'), 'offset', 0, Number.MAX_SAFE_INTEGER);
    const limit = int(c.req.query('limit'), 'limit', MAX_UUIDS, MAX_UUIDS);
    const { total, rows } = d.table.query(c.get('user'), dt, { ...view(c), offset, limit });
    return c.json({ total, offset, uuids: rows.map((r) => r.uuid) } satisfies ViewUuids);
  });

  app.get('/datasets/:uuid/position/:record', (c) => {
    const dt = d.datatype(c.req.param('uuid'));
    const record = c.req.param('record');
    const { rows } = d.table.query(c.get('user'), dt, { ...view(c), offset: 0, limit: Number.MAX_SAFE_INTEGER });
    return c.json({ record, index: rows.findIndex((r) => r.uuid === record) } satisfies ViewPosition);
  });
  return app;
}
