import { Hono } from 'hono';
import { CreateDatasetForm } from '../../../../shared/schemas/requests.js';
import type { AppEnv } from '../auth.js';
import { formFields } from '../body.js';
import type { Domain } from '../../domain/domain.js';
import { badRequest } from '../../domain/errors.js';
import { createRecord } from '../../domain/records/ops.js';
import { createDatasetFromTemplate, listDatabases, readTemplate } from '../../domain/templates.js';
import { API_PREFIX } from './context.js';

export function templateRoutes(d: Domain) {
  const app = new Hono<AppEnv>();
  // Aliases of one action (docs/odr-server.md §5.2); the seed makes template and dataset uuids interchangeable.
  for (const path of ['/template/:uuid', '/master/:uuid', '/search/template/:uuid', '/search/database/:uuid']) {
    app.get(path, (c) => c.json(readTemplate(d, c.get('user'), c.req.param('uuid')!)));
  }
  app.get('/search/databases', (c) => c.json({ databases: listDatabases(d, c.get('user'), false) }));
  app.get('/search/templates', (c) => c.json({ databases: listDatabases(d, c.get('user'), true) }));

  /** POST /dataset: a dataset from a template; 302 to its first record, as the real server does. */
  app.post('/dataset', async (c) => {
    const form = await formFields(c);
    if (!form.template_uuid) throw badRequest('Template UUID is required.');
    const f = CreateDatasetForm.parse(form);
    const user = d.users.actAs(c.get('user'), f.user_email);
    const dt = createDatasetFromTemplate(d, user, f.template_uuid, f.dataset_name);
    const first = createRecord(d, user, dt.uuid, {});
    return c.redirect(`${API_PREFIX}/dataset/record/${first.uuid}`, 302);
  });
  return app;
}
