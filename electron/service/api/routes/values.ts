import { Hono } from 'hono';
import type { AppEnv } from '../auth.js';
import { jsonBody } from '../body.js';
import type { Domain } from '../../domain/domain.js';
import { badRequest, OdrError } from '../../domain/errors.js';
import { setOption, setValue } from '../../domain/records/ops.js';
import { ValueBody } from '../../../../shared/schemas/requests.js';
import { pathText, zodMessage } from '../../../../shared/zodMessage.js';
import { writtenRecordJson } from './context.js';

/**
 * Every refusal of these routes names the record and field of its URL (the caller's own words,
 * so naming them tells nobody anything), then what was wrong, as the save route's messages do.
 */
const place = (record: string, field: string) => `Record ${record}, field ${field}`;

async function valueBody(where: string, c: Parameters<typeof jsonBody>[0]): Promise<ValueBody> {
  let body: unknown;
  try {
    body = await jsonBody(c, { optional: true });
  } catch (e) {
    throw e instanceof OdrError ? badRequest(`${where}: ${e.message}`) : e;
  }
  if (body === undefined) throw badRequest(`${where}: the request body is empty; a JSON object with a "value" property is required`);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`${where}: the request body must be a JSON object with a "value" property, not ${JSON.stringify(body).slice(0, 60)}`);
  }
  const r = ValueBody.safeParse(body);
  if (!r.success) throw badRequest(zodMessage(r.error, { input: body, place: (p) => `${where}: ${pathText(p)}` }));
  return r.data;
}

/** `?expected=` on the option route: the uuids the field must have selected now ("" = none). */
function expectedSelection(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function valueRoutes(d: Domain) {
  const app = new Hono<AppEnv>();

  app.post('/record/:record/:field/value', async (c) => {
    const [record, field] = [c.req.param('record'), c.req.param('field')];
    const body = await valueBody(place(record, field), c);
    const email = typeof body.user_email === 'string' ? body.user_email : c.req.query('user_email');
    const user = d.users.actAs(c.get('user'), email);
    return writtenRecordJson(c, d, user, () => setValue(d, user, record, field, body.value, body.expected_value));
  });

  app.put('/record/:record/:field/:option/:state', async (c) => {
    const [record, field, option, state] = [c.req.param('record'), c.req.param('field'), c.req.param('option'), c.req.param('state')];
    if (state !== 'selected' && state !== 'unselected') {
      throw badRequest(
        `${place(record, field)}, option ${option}: the last URL segment must be "selected" or "unselected", not "${state}"`,
      );
    }
    const expected = expectedSelection(c.req.query('expected'));
    const user = d.users.actAs(c.get('user'), c.req.query('user_email'));
    return writtenRecordJson(c, d, user, () => setOption(d, user, record, field, option, state === 'selected', expected));
  });
  return app;
}
