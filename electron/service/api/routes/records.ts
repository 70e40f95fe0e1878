import { Hono, type Context } from 'hono';
import { CreateRecordForm, DeleteRecordsBody, PublicForm, SaveRecord, SaveWrapper } from '../../../../shared/schemas/requests.js';
import type { AppEnv } from '../auth.js';
import { formFields, jsonBody } from '../body.js';
import type { Domain } from '../../domain/domain.js';
import { assertEdit, readableRecord } from '../../domain/access.js';
import { badRequest } from '../../domain/errors.js';
import { createRecord, deleteRecords, setPublicDate, type DeleteOutcome } from '../../domain/records/ops.js';
import { saveRecord } from '../../domain/records/save.js';
import { recordJson, renderOpts, writtenRecordJson } from './context.js';
import { streamIds, streamRecords } from './recordStream.js';
import { savePlace } from '../../domain/records/savePlace.js';
import { zodMessage } from '../../../../shared/zodMessage.js';

const DIGITS = '{[0-9]+}';

function intParam(c: Context, name: string, dflt: number): number {
  const v = c.req.param(name);
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n >= 1e9) throw badRequest(`${name} must be a whole number below 1000000000`);
  return n;
}

export function recordRoutes(d: Domain, onDeleted: (outcome: DeleteOutcome) => void) {
  const app = new Hono<AppEnv>();
  const lists = d.lists;

  // Specific /dataset/... routes come before the /dataset/{uuid}/{limit}/{offset} list, whose
  // segments would otherwise swallow "record" and "quota" (a real-server routing bug).
  for (const path of ['/dataset/record/:uuid', '/search/record/:uuid']) {
    app.get(path, (c) => {
      const user = c.get('user');
      const rec = readableRecord(d, user, c.req.param('uuid')!);
      return recordJson(c, d, rec, user);
    });
  }

  const idList = (c: Context<AppEnv>, since: number | null) => {
    const dt = d.datatype(c.req.param('uuid')!);
    return streamIds(c, d, lists.ids(c.get('user'), dt, intParam(c, 'limit', 0), intParam(c, 'offset', 0), since));
  };
  for (const prefix of ['/dataset/:uuid/modified/records', '/search/database/:uuid/modified/records']) {
    app.get(`${prefix}/:recent/:limit?/:offset?`, (c) => {
      const recent = c.req.param('recent')!;
      // Non-numeric means "now" on the real server, which matches nothing.
      if (!/^\d+$/.test(recent)) return idList(c, d.ctx.clock().getTime() + 1000);
      const ms = Number(recent);
      // Past the last date JavaScript can hold, nothing can have changed since.
      if (!Number.isSafeInteger(ms) || ms > 8.64e15)
        throw badRequest(`recent must be a time in milliseconds, not "${recent.slice(0, 40)}"`);
      return idList(c, ms);
    });
  }
  app.get(`/search/database/:uuid/records/:limit${DIGITS}?/:offset${DIGITS}?`, (c) => idList(c, null));

  app.post('/dataset/record/public', async (c) => {
    const form = PublicForm.parse(await formFields(c));
    const user = d.users.actAs(c.get('user'), form.user_email);
    const rec = await d.writes.run(() =>
      setPublicDate(d, user, form.dataset_uuid, form.record_uuid, form.public_date, form.expected_public_date),
    );
    return c.json(d.render(rec, renderOpts(c, d, user, true)));
  });

  const save = async (c: Context<AppEnv>) => {
    const body = await jsonBody(c);
    let user = c.get('user');
    let payload: unknown = body;
    const wrapped = SaveWrapper.safeParse(body);
    if (wrapped.success) {
      user = d.users.actAs(user, wrapped.data.user_email);
      payload = wrapped.data.dataset;
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
      throw badRequest('Request body must be a record JSON object');
    if (typeof (payload as { record_uuid?: unknown }).record_uuid !== 'string')
      throw badRequest('Top-level Records must have a record_uuid set');
    const checked = SaveRecord.safeParse(payload);
    if (!checked.success) {
      // Rights to the target first, as for a valid save; fields are named only within the
      // datasets of a record the caller may edit.
      const rec = d.store.byUuid((payload as { record_uuid: string }).record_uuid);
      const schema = d.schema();
      const datasets = new Set(rec ? schema.subtreeIds(d.datatypeOf(assertEdit(d, user, rec))) : []);
      const place = savePlace(schema, (f) => datasets.has(f.datatypeId), payload);
      throw badRequest(zodMessage(checked.error, { input: payload, place }));
    }
    const parsed = checked.data;
    return writtenRecordJson(c, d, user, () => saveRecord(d, user, parsed));
  };
  app.post('/dataset/record', save);
  app.put('/dataset', save);

  app.post('/dataset/:uuid/record', async (c) => {
    const form = CreateRecordForm.parse(await formFields(c));
    const user = d.users.actAs(c.get('user'), form.user_email);
    const rec = await d.writes.run(() =>
      createRecord(d, user, c.req.param('uuid')!, { publicDate: form.public_date, created: form.created }),
    );
    return c.json(d.render(rec, renderOpts(c, d, user, true)));
  });

  app.get(`/dataset/:uuid/:limit${DIGITS}?/:offset${DIGITS}?`, (c) => {
    const user = c.get('user');
    const dt = d.datatype(c.req.param('uuid')!);
    const rows = lists.page(user, dt, intParam(c, 'limit', 100), intParam(c, 'offset', 0));
    const rids = rows.map((r) => r.rid);
    return streamRecords(c, d, rids, (missing) => rids.length - missing, renderOpts(c, d, user), rows);
  });

  const del = async (c: Context<AppEnv>) => {
    const path = c.req.param('uuid');
    const body = await jsonBody(c, { optional: true }).catch((e) => {
      if (path) return undefined;
      throw e;
    });
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw badRequest('A record uuid or JSON body with a record_uuids[] array is required.');
    }
    const parsed = DeleteRecordsBody.parse(body ?? {});
    if (!path && parsed.record_uuids === undefined) throw badRequest('A record uuid or JSON body with a record_uuids[] array is required.');
    const user = d.users.actAs(c.get('user'), parsed.user_email);
    const uuids = [...new Set([...(path ? [path] : []), ...(parsed.record_uuids ?? []).filter((u) => u !== '')])];
    const outcome = await d.writes.run(() => deleteRecords(d, user, uuids));
    onDeleted(outcome);
    return c.json({ deleted: outcome.deleted, count: outcome.deleted.length });
  };
  app.delete('/record', del);
  app.delete('/record/:uuid', del);
  return app;
}
