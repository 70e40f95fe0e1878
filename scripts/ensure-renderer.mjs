#!/usr/bin/env node
// `npm run serve` serves the built renderer: build it when it is missing or older than its sources.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = path.join(root, 'dist', 'renderer', 'index.html');

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

if (!existsSync(path.join(root, 'renderer', 'index.html'))) process.exit(0);
const stale =
  !existsSync(built) || statSync(built).mtimeMs < Math.max(newest(path.join(root, 'renderer')), newest(path.join(root, 'shared')));
if (stale) {
  console.log('building the renderer…');
  const r = spawnSync('npm', ['run', 'build:renderer', '--silent'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(r.status ?? 1);
}
