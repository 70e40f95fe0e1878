import { Hono } from 'hono';
import { HistoryQuery } from '../../../../shared/schemas/history.js';
import type { AppEnv } from '../auth.js';
import type { Domain } from '../../domain/domain.js';
import { recordHistory } from '../../domain/records/history.js';

/** GET /local/records/{uuid}/history: per-field history for the record pane (README "Local routes"). */
export function localHistoryRoutes(d: Domain) {
  return new Hono<AppEnv>().get('/records/:uuid/history', (c) => {
    const q = HistoryQuery.parse(c.req.query());
    return c.json(
      recordHistory(d, c.get('user'), c.req.param('uuid'), {
        field: q.field,
        limit: q.limit === undefined ? 200 : Number(q.limit),
        before: q.before === undefined ? undefined : Number(q.before),
      }),
    );
  });
}
