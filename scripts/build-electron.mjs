#!/usr/bin/env node
// Bundles the Electron main process, preload and the service process (a utilityProcess) into
// dist-electron/ (CommonJS, as Electron loads them). Native modules and Electron itself stay external.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  sourcemap: true,
  logLevel: 'warning',
  external: ['electron', 'electron-updater', 'better-sqlite3', 'sharp'],
  // The service is ESM and reads import.meta.url; in the CJS bundle it is this file's URL.
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
};
await build({ ...common, entryPoints: [path.join(root, 'electron/main/main.ts')], outfile: path.join(root, 'dist-electron/main.cjs') });
await build({
  ...common,
  entryPoints: [path.join(root, 'electron/main/preload.ts')],
  outfile: path.join(root, 'dist-electron/preload.cjs'),
});
await build({
  ...common,
  entryPoints: [path.join(root, 'electron/service/host/child.ts')],
  outfile: path.join(root, 'dist-electron/service.cjs'),
});
// The API reference page's script (Scalar, a dev dependency): the packaged app serves this copy.
const scalar = path.join(path.dirname(createRequire(import.meta.url).resolve('@scalar/api-reference')), 'browser', 'standalone.js');
mkdirSync(path.join(root, 'dist-electron/api-docs'), { recursive: true });
copyFileSync(scalar, path.join(root, 'dist-electron/api-docs/standalone.js'));
console.log('built dist-electron/main.cjs, preload.cjs and service.cjs');
