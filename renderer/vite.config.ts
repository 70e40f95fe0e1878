import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

// The renderer is served by the service (npm run serve) or by Electron's app scheme, always
// from the origin that also answers /api/v4 — so relative asset paths and no dev proxy.
export default defineConfig({
  root: here,
  base: './',
  plugins: [react()],
  build: {
    outDir: path.resolve(here, '../dist/renderer'),
    emptyOutDir: true,
    target: 'es2023',
    sourcemap: true,
  },
  server: { fs: { allow: [path.resolve(here, '..')] } },
});
