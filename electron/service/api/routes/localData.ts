import { Hono } from 'hono';
import type { AppEnv } from '../auth.js';
import { renderOpts, sendJson } from './context.js';
import { joinJson } from '../../domain/renderCache.js';
import type { Domain } from '../../domain/domain.js';
import { badRequest } from '../../domain/errors.js';
import { viewOf } from './viewQuery.js';
import { datasetSummaries } from '../../domain/search/recordTable.js';
import type { DatasetSummaries } from '../../../../shared/schemas/local.js';

/** A non-negative integer query parameter, capped at `max`. */
export const int = (raw: string | undefined, name: string, dflt: number, max: number) => {
  if (raw === undefined || raw === '') return dflt;
  if (!/^\d+$/.test(raw)) throw badRequest(`${name} must be a non-negative integer, not "${raw}"`);
  return Math.min(Number(raw), max);
};

/** Our own data routes for the UI (README: "Local routes"): dataset summaries, table queries. */
export function localDataRoutes(d: Domain) {
  const app = new Hono<AppEnv>();

  app.get('/datasets', (c) => c.json({ datasets: datasetSummaries(d, c.get('user')) } satisfies DatasetSummaries));

  // Records of a dataset for the table: full-text `q`, `sort` (field uuid or _id/_updated/
  // _created/_public), `dir`, `offset`, `limit` (≤ 500), `count` (capped by default: a lower
  // bound past the cap, flagged). Records have the list endpoint's shape.
  app.get('/datasets/:uuid/records', (c) => {
    const user = c.get('user');
    const dt = d.datatype(c.req.param('uuid'));
    const offset = int(c.req.query('offset'), 'offset', 0, Number.MAX_SAFE_INTEGER);
    const limit = int(c.req.query('limit'), 'limit', 100, 500);
    const count = c.req.query('count') ?? 'capped';
    if (count !== 'capped' && count !== 'exact') throw badRequest(`count must be "capped" or "exact", not "${count}"`);
    const { total, capped, rows } = d.table.query(user, dt, { ...viewOf(c), offset, limit, count });
    const head = `{"total":${total},"total_capped":${capped},"offset":${offset},"records":[`;
    return sendJson(c, joinJson(head, d.renderTopsJson(rows, renderOpts(c, d, user)), ']}'));
  });
  return app;
}
