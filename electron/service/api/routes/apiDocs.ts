import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { openApiDocument } from '../../../../shared/api/openapi.js';
import type { AppEnv } from '../auth.js';
import { OdrError } from '../../domain/errors.js';

/**
 * The Scalar reference page's self-contained script: next to the bundled main process in the
 * packaged app (scripts/build-electron.mjs copies it), else from node_modules.
 */
function scalarScript(): string | null {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'api-docs', 'standalone.js')];
  try {
    const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
    candidates.push(path.join(path.dirname(entry), 'browser', 'standalone.js'));
  } catch {
    // not installed (a packaged app without the copy): the page says so
  }
  return candidates.find((p) => existsSync(p)) ?? null;
}

// No fonts or scripts from the network: the page works offline.
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>odr-desktop API reference</title></head>
<body><div id="app"></div>
<script src="/api-docs/standalone.js"></script>
<script>
Scalar.createApiReference('#app', {
  url: '/api/v4/openapi.json', withDefaultFonts: false, hideClientButton: false, telemetry: false,
  // Both need Scalar's servers; the page is for offline use.
  agent: { disabled: true }, mcp: { disabled: true },
  authentication: { preferredSecurityScheme: 'bearer' },
});
</script></body></html>`;

/** GET /api/v4/openapi.json (public: it holds no data) and the interactive page at /api-docs. */
export function apiDocRoutes() {
  const app = new Hono<AppEnv>();
  let doc: Record<string, unknown> | null = null;
  // The service strips a `.json` suffix before routing (stripJsonSuffix): this answers /openapi.json.
  app.get('/api/v4/openapi', (c) => {
    doc ??= openApiDocument();
    // Built once; the server is the origin this request came to (loopback port, odr:// scheme).
    return c.json({ ...doc, servers: [{ url: new URL(c.req.url).origin }] });
  });
  app.get('/api-docs', (c) => c.html(PAGE));
  let script: Buffer | null = null;
  app.get('/api-docs/standalone.js', (c) => {
    if (!script) {
      const file = scalarScript();
      if (!file) throw new OdrError(404, 'The API reference script is not bundled with this build');
      script = readFileSync(file);
    }
    return c.body(new Uint8Array(script), 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=86400',
    });
  });
  return app;
}
