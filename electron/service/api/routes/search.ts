import { Hono, type Context } from 'hono';
import { DatasetSearchBody, TemplateSearchPost } from '../../../../shared/schemas/search.js';
import type { AppEnv } from '../auth.js';
import { formFields, jsonBody, parsedJson } from '../body.js';
import type { Domain } from '../../domain/domain.js';
import { badRequest, notFound } from '../../domain/errors.js';
import { canViewDatatype } from '../../domain/permissions.js';
import { fieldStats, fieldStatsByDataset } from '../../domain/search/fieldStats.js';
import { RecordSearch, type Criteria } from '../../domain/search/recordSearch.js';
import { datasetKeyCriteria, decodeKey, fieldListCriteria, templateKeyCriteria } from '../../domain/search/searchKeys.js';
import { templateField } from '../../domain/templates.js';
import { renderOpts } from './context.js';
import { streamRecords } from './recordStream.js';
import { datasetHidden } from '../../domain/rights.js';

const DIGITS = '{[0-9]+}';

/** limit/offset path segments as the real search routes read them: 0 = all, below a billion. */
function page(c: Context): { limit: number; offset: number } {
  const read = (name: 'limit' | 'offset') => {
    const v = c.req.param(name);
    const n = v === undefined || v === '' ? 0 : Number(v);
    if (!Number.isSafeInteger(n) || n >= 1e9) throw badRequest(`${name === 'limit' ? 'Limit' : 'Offset'} must be less than a billion`);
    return n;
  };
  return { limit: read('limit'), offset: read('offset') };
}

const slice = <T>(all: T[], p: { limit: number; offset: number }) => all.slice(p.offset, p.limit === 0 ? undefined : p.offset + p.limit);

/** The search key of POST /search: a form field (as the real server reads it) or a JSON body. */
async function postedKey(c: Context): Promise<Record<string, unknown>> {
  const type = c.req.header('content-type') ?? '';
  if (/multipart\/form-data|application\/x-www-form-urlencoded/i.test(type)) {
    return decodeKey(TemplateSearchPost.parse(await formFields(c)).search_key);
  }
  const body = await jsonBody(c);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('Request body must be a JSON object with a search_key');
  const o = body as Record<string, unknown>;
  // A client may post the decoded key itself.
  if (o.search_key === undefined && o.template_uuid !== undefined) return o;
  return decodeKey(TemplateSearchPost.parse(o).search_key);
}

export function searchRoutes(d: Domain) {
  const app = new Hono<AppEnv>();
  const search = new RecordSearch(d);
  /** Matches up to the end of the page (all of them when limit is 0 or a total is needed). */
  const matches = (c: Context<AppEnv>, crit: Criteria, p?: { limit: number; offset: number }) =>
    search.run(c.get('user'), crit, p && p.limit > 0 ? p.offset + p.limit : Infinity);
  /**
   * `{"records": [...], "count"}` streamed a chunk at a time (limit 0 asks for every match).
   * `total`: the count before the records not sent (deleted meanwhile) are taken off; none: no count.
   */
  const render = (c: Context<AppEnv>, rids: number[], total?: number) =>
    streamRecords(c, d, rids, total === undefined ? null : (missing) => total - missing, renderOpts(c, d, c.get('user')));

  app.post(`/dataset/:uuid/search/:limit${DIGITS}?/:offset${DIGITS}?`, async (c) => {
    const p = page(c);
    const body = await parsedJson(c, DatasetSearchBody);
    const dt = d.datatype(c.req.param('uuid')!);
    if (dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
    if (!canViewDatatype(c.get('user'), dt, d.now())) throw datasetHidden(dt);
    return render(c, slice(matches(c, fieldListCriteria(dt, body), p), p));
  });

  app.get(`/dataset/search/:key/:limit${DIGITS}?/:offset${DIGITS}?/:list{[0-9]}?`, (c) => {
    const p = page(c);
    const crit = datasetKeyCriteria(d, c.get('user'), decodeKey(c.req.param('key')!));
    const rids = slice(matches(c, crit, p), p);
    if (c.req.param('list') === '1') {
      const rows = search.rows(rids);
      const records = rows.map((r) => ({ internal_id: r.internal_id, unique_id: r.uuid, external_id: '', record_name: '' }));
      return c.json({ count: records.length, records });
    }
    return render(c, rids, rids.length);
  });

  const statsRoute = (kind: 'stats' | 'statsbydataset' | 'legacystats') => (c: Context<AppEnv>) => {
    const args = [d, search, c.get('user'), c.req.param('template')!, c.req.param('field')!] as const;
    return c.json(kind === 'statsbydataset' ? fieldStatsByDataset(...args) : fieldStats(...args));
  };
  app.get('/search/field/stats/:template/:field', statsRoute('stats'));
  app.get('/search/field/statsbydataset/:template/:field', statsRoute('statsbydataset'));
  app.get('/search/field/legacystats/:template/:field', statsRoute('legacystats'));

  app.get('/search/field/:field', (c) => {
    const uuid = c.req.param('field')!;
    const now = d.now();
    const user = c.get('user');
    const f = d.schema().fieldsByUuid.get(uuid);
    if (!f) throw notFound('Datafield');
    const top = d.schema().datatypes.get(f.datatypeId)!.top;
    if (!canViewDatatype(user, top, now)) throw datasetHidden(top);
    return c.json(templateField(f));
  });

  // After every other /search/… route (registered earlier in app.ts): the key is any segment.
  app.get(`/search/:key/:limit${DIGITS}?/:offset${DIGITS}?`, (c) => {
    const p = page(c);
    const crit = templateKeyCriteria(d, decodeKey(c.req.param('key')!));
    return render(c, slice(matches(c, crit, p), p));
  });

  const templatePost = (counted: boolean) => async (c: Context<AppEnv>) => {
    const p = page(c);
    const crit = templateKeyCriteria(d, await postedKey(c));
    const all = matches(c, crit, counted ? undefined : p);
    return render(c, slice(all, p), counted ? all.length : undefined);
  };
  app.post(`/search/:limit${DIGITS}?/:offset${DIGITS}?`, templatePost(true));
  app.post(`/legacysearch/:limit${DIGITS}?/:offset${DIGITS}?`, templatePost(false));
  return app;
}
