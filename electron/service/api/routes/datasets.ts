import { Hono } from 'hono';
import type { AppEnv } from '../auth.js';
import { jsonBody } from '../body.js';
import type { Domain } from '../../domain/domain.js';
import { badRequest, notFound } from '../../domain/errors.js';
import type { BlobStore } from '../../domain/files/blobStore.js';
import { listTrash, restoreTrash, trashDataset } from '../../domain/datasets/trash.js';
import { apiBase } from './context.js';

/** DELETE /dataset/{uuid} (to the trash) and the legacy id-based downloads. */
export function datasetRoutes(d: Domain, blobs: BlobStore) {
  const app = new Hono<AppEnv>();

  // The real server reads `user_email` from a JSON body (act-as, super-users only here) and
  // answers the text "Deleted".
  app.delete('/dataset/:uuid', async (c) => {
    const body = await jsonBody(c, { optional: true });
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) throw badRequest('Request body must be a JSON object');
    const email = (body as { user_email?: unknown } | undefined)?.user_email;
    if (email !== undefined && typeof email !== 'string') throw badRequest('user_email must be a string');
    const user = d.users.actAs(c.get('user'), email);
    // Its own transaction (snapshot, then delete, without yielding); file bytes go after the commit.
    trashDataset(d, blobs, user, c.req.param('uuid'));
    return c.text('Deleted', 200);
  });

  // Numeric file/image ids of old clients: 302 to the uuid route, which checks access and serves.
  const legacy = (image: boolean) => (c: import('hono').Context<AppEnv>) => {
    const uuid = d.ctx.db.prepare('SELECT uuid FROM files WHERE internal_id = ? AND is_image = ?').pluck().get(Number(c.req.param('id')), image ? 1 : 0) as string | undefined;
    if (!uuid) throw notFound(image ? 'Image' : 'File');
    return c.redirect(`${apiBase(c)}/file/${uuid}`, 302);
  };
  app.get('/search/file_download/:id{[0-9]+}', legacy(false));
  app.get('/search/image_download/:id{[0-9]+}', legacy(true));
  return app;
}

/** /local/trash: deleted datasets for 30 days, and putting one back. */
export function localTrashRoutes(d: Domain, blobs: BlobStore) {
  const app = new Hono<AppEnv>();
  app.get('/trash', (c) => c.json({ datasets: listTrash(d, c.get('user')) }));
  app.post('/trash/:id/restore', async (c) => {
    return c.json(await restoreTrash(d, blobs, c.get('user'), c.req.param('id')));
  });
  return app;
}
