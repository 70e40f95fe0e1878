import { Hono, type Context, type Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Domain } from '../domain/domain.js';
import { BlobStore } from '../domain/files/blobStore.js';
import { API_HEADERS, corsMiddleware } from './cors.js';
import { requireBearer, requireBearerOrQuery, requireJobAuth, Tokens, type AppEnv } from './auth.js';
import { errorBody, onError } from './errors.js';
import { fastReads } from './fastReads.js';
import { API_PREFIX } from './routes/context.js';
import { sessionRoutes, whoamiRoutes, type SessionPolicy } from './routes/local.js';
import { apiDocRoutes } from './routes/apiDocs.js';
import { authStatusRoute, datasetRoutes, localTrashRoutes } from './routes/datasets.js';
import { fileRoutes } from './routes/files.js';
import { jobRoutes } from './routes/jobs.js';
import { localDataRoutes } from './routes/localData.js';
import { localSelectionRoutes } from './routes/localSelection.js';
import { localHistoryRoutes } from './routes/localHistory.js';
import { localBatchRoutes } from './routes/localBatch.js';
import { localViewRoutes } from './routes/localViews.js';
import { localExportRoutes } from './routes/localExport.js';
import { localJobRoutes } from './routes/localJobs.js';
import { localSyncRoutes } from './routes/localSync.js';
import { SyncService } from '../sync/runner.js';
import type { SecretBox } from '../sync/secrets.js';
import { quotaRoutes } from './routes/quota.js';
import { recordRoutes } from './routes/records.js';
import { purgeExpiredRecords } from '../domain/records/trash.js';
import { searchRoutes } from './routes/search.js';
import { templateRoutes } from './routes/templates.js';
import { tokenRoutes } from './routes/token.js';
import { valueRoutes } from './routes/values.js';
import { localUserRoutes, userRoutes } from './routes/users.js';

export interface AppOptions extends SessionPolicy {
  /** Seals remote passwords (a key file in serve mode, safeStorage in Electron). */
  secrets: SecretBox;
  /** A built renderer to serve at / (npm run serve). */
  static?: (app: Hono<AppEnv>) => void;
}

const JOB_PATH = /^\/api\/v4\/(job|jobs|worker)(\/|$)/;
const FILE_GET = /^\/api\/v4\/file\/[^/]+$/;
const STREAMED_UPLOAD = /^\/api\/v4\/file$/;

/** The whole HTTP surface as a fetch-style handler: ODR v4 under /api/v4, ours under /local. */
export function createApp(d: Domain, opts: AppOptions) {
  const tokens = new Tokens(d);
  const blobs = new BlobStore(d.ctx);
  const sync = new SyncService(d, opts.secrets, blobs);
  const app = new Hono<AppEnv>();
  app.onError(onError);
  app.notFound((c) => c.json(errorBody(404, `No route found for "${c.req.method} ${c.req.path}"`), 404));

  const corsMw = corsMiddleware();
  app.use(`${API_PREFIX}/*`, corsMiddleware(API_HEADERS));

  const tooLarge = (c: Context) => c.json(errorBody(413, `Request body larger than ${d.ctx.config.maxBodyBytes} bytes`), 413);
  const limit = bodyLimit({ maxSize: d.ctx.config.maxBodyBytes, onError: tooLarge });
  const bearer = requireBearer(tokens);
  const jobAuth = requireJobAuth(tokens, d);
  const fileAuth = requireBearerOrQuery(tokens);
  // GET/HEAD/OPTIONS carry no body; skipping the check spares reads a body stream per request.
  // A body with a Content-Length (node:http holds it to that length) is judged by the header
  // alone, as bodyLimit would, but without touching `raw.body`: that builds a web Request and
  // stream per request (a fifth of a small write's CPU), while routes read the body directly.
  // Chunked bodies, of unknown length, go through bodyLimit, which counts them as they arrive.
  const NO_BODY = new Set(['GET', 'HEAD', 'OPTIONS']);
  app.use(`${API_PREFIX}/*`, (c: Context<AppEnv>, next: Next) => {
    if (NO_BODY.has(c.req.method) || STREAMED_UPLOAD.test(c.req.path)) return next();
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) return limit(c, next);
    return Number(length) > d.ctx.config.maxBodyBytes ? Promise.resolve(tooLarge(c)) : next();
  });
  app.use(`${API_PREFIX}/*`, (c: Context<AppEnv>, next: Next) => {
    const path = c.req.path;
    if (path === `${API_PREFIX}/token` || path === `${API_PREFIX}/openapi` || path === `${API_PREFIX}/auth/status`) return next();
    if (JOB_PATH.test(path)) return jobAuth(c, next);
    if (c.req.method === 'GET' && FILE_GET.test(path)) return fileAuth(c, next);
    return bearer(c, next);
  });

  app.route('/', apiDocRoutes());
  app.route('/', authStatusRoute(tokens));
  const api = new Hono<AppEnv>();
  api.route('/', tokenRoutes(d, tokens));
  api.route('/', templateRoutes(d));
  api.route('/', quotaRoutes(d));
  api.route('/', valueRoutes(d));
  // Bytes only on a sync remote are fetched on first use (sync/filePull.ts).
  api.route(
    '/',
    fileRoutes(d, blobs, (f) => sync.files.ensure(f)),
  );
  api.route('/', jobRoutes(d));
  api.route('/', userRoutes(d));
  api.route(
    '/',
    recordRoutes(d, (outcome) => {
      blobs.removeUnreferenced(outcome.orphanCandidates);
      purgeExpiredRecords(d, blobs);
    }),
  );
  // Last: GET /search/{key} takes any segment the specific /search/… routes above did not.
  api.route('/', datasetRoutes(d, blobs));
  api.route('/', searchRoutes(d));
  app.route(API_PREFIX, api);

  app.use('/local/*', corsMw);
  app.route('/local', sessionRoutes(d, tokens, opts));
  const local = new Hono<AppEnv>();
  // EventSource and <img> cannot send headers: the local routes also take ?access_token=.
  local.use('*', fileAuth);
  local.route('/', whoamiRoutes());
  local.route('/', localJobRoutes(d, blobs));
  local.route('/', localDataRoutes(d));
  local.route('/', localTrashRoutes(d, blobs));
  local.route('/', localSelectionRoutes(d));
  local.route('/', localBatchRoutes(d));
  local.route('/', localViewRoutes(d));
  local.route('/', localExportRoutes(d, blobs));
  local.route('/', localHistoryRoutes(d));
  local.route('/', localUserRoutes(d));
  local.route('/', localSyncRoutes(d, sync));
  app.route('/local', local);

  opts.static?.(app);
  return { app, tokens, blobs, sync, fastRead: fastReads(d, tokens) };
}

/** The real server accepts a `.json` suffix on the last path segment. */
export function stripJsonSuffix(req: Request): Request {
  const url = req.url;
  const q = url.indexOf('?');
  const pathEnd = q < 0 ? url.length : q;
  if (!url.startsWith('.json', pathEnd - 5)) return req;
  return new Request(url.slice(0, pathEnd - 5) + url.slice(pathEnd), req);
}
