import { Hono } from 'hono';
import { BatchRequest } from '../../../../shared/schemas/batch.js';
import type { AppEnv } from '../auth.js';
import { parsedJson } from '../body.js';
import type { Domain } from '../../domain/domain.js';
import { runBatch } from '../../domain/records/batch.js';

/** Batch edits from the UI (README "Local routes"): one change across the selected records. */
export function localBatchRoutes(d: Domain) {
  const app = new Hono<AppEnv>();
  app.post('/datasets/:uuid/batch', async (c) => {
    const req = await parsedJson(c, BatchRequest);
    const user = c.get('user');
    return c.json(await d.writes.run(() => runBatch(d, user, c.req.param('uuid'), req)));
  });
  return app;
}
