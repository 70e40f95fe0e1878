import { Hono } from 'hono';
import type { ViewPosition, ViewUuids } from '../../../../shared/schemas/selection.js';
import type { AppEnv } from '../auth.js';
import type { Domain } from '../../domain/domain.js';
import { int } from './localData.js';
import { viewOf } from './viewQuery.js';

/** Enough for every record of the largest dataset we plan for (100k) in one answer. */
const MAX_UUIDS = 200_000;

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
    const { total, rids } = d.table.queryRids(c.get('user'), dt, { ...viewOf(c), offset, limit });
    return c.json({ total, offset, uuids: d.table.uuidsOf(rids) } satisfies ViewUuids);
  });

  app.get('/datasets/:uuid/position/:record', (c) => {
    const dt = d.datatype(c.req.param('uuid'));
    const record = c.req.param('record');
    // Rids only: the rows of a 1M-record view took ~0.5 GB to find one position.
    const { rids } = d.table.queryRids(c.get('user'), dt, { ...viewOf(c), offset: 0, limit: Number.MAX_SAFE_INTEGER });
    const rid = d.store.byUuid(record)?.rid;
    return c.json({ record, index: rid === undefined ? -1 : rids.indexOf(rid) } satisfies ViewPosition);
  });
  return app;
}
