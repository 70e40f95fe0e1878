import { Hono } from 'hono';
import { formatTimestamp } from '../../../../shared/dates.js';
import type { AppEnv, Tokens } from '../auth.js';
import { formFields, jsonBody } from '../body.js';
import type { Domain } from '../../domain/domain.js';
import { badRequest, notFound } from '../../domain/errors.js';
import { MAX_RECORD_TRASH_PAGE, RecordTrashQuery } from '../../../../shared/schemas/local.js';
import { canViewDatatype } from '../../domain/permissions.js';
import { RecordSearch } from '../../domain/search/recordSearch.js';
import type { BlobStore } from '../../domain/files/blobStore.js';
import { listTrash, restoreTrash, trashDataset } from '../../domain/datasets/trash.js';
import { API_PREFIX, apiBase, recordJson } from './context.js';
import { listRecordTrash, purgeExpiredRecords, restoreRecord } from '../../domain/records/trash.js';
import { publishDataset } from '../../domain/datasets/publish.js';
import { datasetJsonLd, JSONLD_DEFAULT_LIMIT } from '../../domain/datasets/jsonld.js';
import { JsonLdQuery } from '../../../../shared/schemas/jsonld.js';
import { fileStore } from '../../store/files.js';
import { recordLists } from '../../store/recordLists.js';
import { datasetHidden } from '../../domain/rights.js';

/** DELETE /dataset/{uuid} (to the trash), publish, JSON-LD, modified files and the legacy id-based downloads. */
export function datasetRoutes(d: Domain, blobs: BlobStore) {
  const app = new Hono<AppEnv>();

  // The real server reads `user_email` from a JSON body (act-as, super-users only here) and
  // answers the text "Deleted".
  app.delete('/dataset/:uuid', async (c) => {
    const body = await jsonBody(c, { optional: true });
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body)))
      throw badRequest('Request body must be a JSON object');
    const email = (body as { user_email?: unknown } | undefined)?.user_email;
    if (email !== undefined && typeof email !== 'string') throw badRequest('user_email must be a string');
    const user = d.users.actAs(c.get('user'), email);
    // Its own transaction (snapshot, then delete, without yielding); file bytes go after the commit.
    trashDataset(d, blobs, user, c.req.param('uuid'));
    return c.text('Deleted', 200);
  });

  // POST /dataset/publish (form, as the real server): 302 to the dataset's records.
  app.post('/dataset/publish', async (c) => {
    const form = await formFields(c);
    const uuid = await d.writes.run(() => publishDataset(d, c.get('user'), form));
    return c.redirect(`${API_PREFIX}/dataset/${uuid}`, 302);
  });

  // GET /jsonld/{uuid}: schema.org Dataset, a page of the readable records' values.
  app.get('/jsonld/:uuid', (c) => {
    const q = JsonLdQuery.parse(c.req.query());
    const limit = q.limit === undefined ? JSONLD_DEFAULT_LIMIT : Number(q.limit);
    return c.json(datasetJsonLd(d, c.get('user'), c.req.param('uuid'), { limit, offset: Number(q.offset ?? 0), apiBase: apiBase(c) }));
  });

  // Numeric file/image ids of old clients: 302 to the uuid route, which checks access and serves.
  const legacy = (image: boolean) => (c: import('hono').Context<AppEnv>) => {
    const uuid = fileStore(d.ctx.db).uuidByInternalId(Number(c.req.param('id')), image);
    if (!uuid) throw notFound(image ? 'Image' : 'File');
    return c.redirect(`${apiBase(c)}/file/${uuid}`, 302);
  };
  app.get('/search/file_download/:id{[0-9]+}', legacy(false));
  app.get('/search/image_download/:id{[0-9]+}', legacy(true));

  // {files: [original names]} of the readable top-level records changed since `recent` (ms) and
  // their descendants, as the real server answers (it reads limit/offset but ignores them; here
  // they page the names, 0 = all).
  const search = new RecordSearch(d);
  app.get('/dataset/:uuid/modified_files/:recent/:limit{[0-9]+}?/:offset{[0-9]+}?', (c) => {
    const dt = d.datatype(c.req.param('uuid')!, 'Datatype');
    if (dt.parentId !== null) throw badRequest('Datatype must be top-level');
    const user = c.get('user');
    if (!canViewDatatype(user, dt, d.now())) throw datasetHidden(dt);
    const [limit, offset] = [c.req.param('limit'), c.req.param('offset')].map((v) => Number(v ?? 0));
    if (limit! >= 1e9) throw badRequest('Limit must be less than a billion');
    if (offset! >= 1e9) throw badRequest('Offset must be less than a billion');
    const recent = c.req.param('recent')!;
    // Non-numeric means "now" on the real server.
    const since = formatTimestamp(/^\d+$/.test(recent) ? new Date(Math.floor(Number(recent) / 1000) * 1000) : d.ctx.clock());
    const tops = recordLists(d.ctx.db).changedTops(dt.id, since);
    const readable = tops.filter(search.readable(user)).map((r) => r.rid);
    const names = fileStore(d.ctx.db).namesUnderTops(readable);
    return c.json({ files: names.slice(offset, limit ? offset! + limit : undefined) });
  });
  return app;
}

/** GET /auth/status: `{logged_in}` for whatever credentials came (never an error, as on the real server). */
export function authStatusRoute(tokens: Tokens) {
  return new Hono<AppEnv>().get('/api/v4/auth/status', async (c) => {
    const m = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
    const loggedIn = m
      ? await tokens.verify(m[1]!).then(
          () => true,
          () => false,
        )
      : false;
    return c.json({ logged_in: loggedIn });
  });
}

/** /local/trash: deleted datasets for 30 days, and putting one back; the same for a deleted record. */
export function localTrashRoutes(d: Domain, blobs: BlobStore) {
  const app = new Hono<AppEnv>();
  app.get('/trash', (c) => c.json({ datasets: listTrash(d, c.get('user')) }));
  app.post('/trash/:id/restore', async (c) => {
    return c.json(await restoreTrash(d, blobs, c.get('user'), c.req.param('id')));
  });
  app.get('/records/trash', (c) => {
    const q = RecordTrashQuery.parse(c.req.query());
    const limit = q.limit === undefined ? 100 : Number(q.limit);
    if (limit < 1 || limit > MAX_RECORD_TRASH_PAGE) throw badRequest(`limit must be 1 … ${MAX_RECORD_TRASH_PAGE}, got ${q.limit}`);
    return c.json(listRecordTrash(d, c.get('user'), limit, q.offset === undefined ? 0 : Number(q.offset)));
  });
  app.post('/records/:uuid/restore', async (c) => {
    const user = c.get('user');
    const rec = await d.writes.run(() => restoreRecord(d, user, c.req.param('uuid')));
    purgeExpiredRecords(d, blobs);
    return recordJson(c, d, rec, user);
  });
  return app;
}
