import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Hono } from 'hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { AppEnv } from '../api/auth.js';

/** Serves a built renderer at /, with index.html for every other non-API path (client routes). */
export function serveRenderer(distDir: string) {
  return (app: Hono<AppEnv>) => {
    const index = path.join(distDir, 'index.html');
    if (!existsSync(index)) return;
    app.use('/assets/*', serveStatic({ root: distDir }));
    app.get('/favicon.svg', serveStatic({ root: distDir }));
    // Read per navigation (a few KB): a rebuilt renderer is picked up without a restart.
    app.get('*', (c, next) =>
      c.req.path.startsWith('/api/') || c.req.path.startsWith('/local/') ? next() : c.html(readFileSync(index, 'utf8')),
    );
  };
}
