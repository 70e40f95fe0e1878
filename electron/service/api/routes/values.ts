import { Hono } from 'hono';
import type { AppEnv } from '../auth.js';
import { jsonBody } from '../body.js';
import type { Domain } from '../../domain/domain.js';
import { badRequest } from '../../domain/errors.js';
import { setOption, setValue } from '../../domain/records/ops.js';
import { recordJson } from './context.js';

export function valueRoutes(d: Domain) {
  const app = new Hono<AppEnv>();

  app.post('/record/:record/:field/value', async (c) => {
    const body = await jsonBody(c, { optional: true });
    if (body === undefined) throw badRequest('Request body with a "value" property is required');
    if (typeof body !== 'object' || body === null || Array.isArray(body) || !('value' in body)) {
      throw badRequest('Request body must be JSON containing a "value" property');
    }
    const { value, user_email } = body as { value: unknown; user_email?: unknown };
    if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) {
      throw badRequest('"value" must be a string, number or boolean');
    }
    const email = typeof user_email === 'string' ? user_email : c.req.query('user_email');
    const user = d.users.actAs(c.get('user'), email);
    const rec = await d.writes.run(() => setValue(d, user, c.req.param('record'), c.req.param('field'), value));
    return recordJson(c, d, rec, user);
  });

  app.put('/record/:record/:field/:option/:state', async (c) => {
    const state = c.req.param('state');
    if (state !== 'selected' && state !== 'unselected') {
      throw badRequest(`Malformed URL: the last segment must be "selected" or "unselected", not "${state}"`);
    }
    const user = d.users.actAs(c.get('user'), c.req.query('user_email'));
    const rec = await d.writes.run(() =>
      setOption(d, user, c.req.param('record'), c.req.param('field'), c.req.param('option'), state === 'selected'),
    );
    return recordJson(c, d, rec, user);
  });
  return app;
}
