import { Hono } from 'hono';
import { ColumnLayout, SavedSearchCreate, type ColumnLayoutAnswer, type SavedSearchList } from '../../../../shared/schemas/view.js';
import type { AppEnv } from '../auth.js';
import { idParam, parsedJson } from '../body.js';
import type { Domain } from '../../domain/domain.js';
import { Views } from '../../domain/views.js';

/** Saved searches and column layouts of the record list (README "Local routes"), per user and dataset. */
export function localViewRoutes(d: Domain) {
  const app = new Hono<AppEnv>();
  const views = new Views(d);

  app.get('/datasets/:uuid/saved-searches', (c) =>
    c.json({ searches: views.list(c.get('user'), c.req.param('uuid')) } satisfies SavedSearchList),
  );
  app.post('/datasets/:uuid/saved-searches', async (c) => {
    const body = await parsedJson(c, SavedSearchCreate);
    const user = c.get('user');
    return c.json(await d.writes.run(() => views.create(user, c.req.param('uuid'), body)));
  });
  app.delete('/saved-searches/:id', async (c) => {
    const id = idParam(c);
    const user = c.get('user');
    await d.writes.run(() => views.delete(user, id));
    return c.json({ deleted: id });
  });

  app.get('/datasets/:uuid/columns', (c) =>
    c.json({ layout: views.columns(c.get('user'), c.req.param('uuid')) } satisfies ColumnLayoutAnswer),
  );
  app.put('/datasets/:uuid/columns', async (c) => {
    const body = await parsedJson(c, ColumnLayout);
    const user = c.get('user');
    return c.json({ layout: await d.writes.run(() => views.putColumns(user, c.req.param('uuid'), body)) } satisfies ColumnLayoutAnswer);
  });
  app.delete('/datasets/:uuid/columns', async (c) => {
    const user = c.get('user');
    await d.writes.run(() => views.resetColumns(user, c.req.param('uuid')));
    return c.json({ layout: null } satisfies ColumnLayoutAnswer);
  });
  return app;
}
