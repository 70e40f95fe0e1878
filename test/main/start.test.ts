import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/service.js';

// `npm start` on a machine that cannot fetch the Electron binary: one line naming what failed
// and pointing at `npm run serve`, a non-zero exit, no stack trace. The app dir is a copy whose
// electron package has no binary, and downloads go to a closed loopback port, so the test gives
// the same answer on machines that have (or could download) Electron.
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('npm start without an Electron binary', () => {
  it('is what `npm start` runs', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe('node scripts/start.mjs');
  });

  it('prints one line saying what failed and that `npm run serve` opens the same app, and exits 1', () => {
    const app = tempDir('odr-start-');
    dirs.push(app);
    mkdirSync(path.join(app, 'scripts'));
    cpSync(path.join(ROOT, 'scripts', 'start.mjs'), path.join(app, 'scripts', 'start.mjs'));
    cpSync(path.join(ROOT, 'package.json'), path.join(app, 'package.json'));
    const electronPkg = path.join(ROOT, 'node_modules', 'electron');
    cpSync(electronPkg, path.join(app, 'node_modules', 'electron'), {
      recursive: true,
      filter: (p) => !/[\\/](dist|path\.txt)$/.test(p.slice(electronPkg.length)),
    });
    const r = spawnSync(process.execPath, ['scripts/start.mjs'], {
      cwd: app,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        ...process.env,
        NODE_PATH: path.join(ROOT, 'node_modules'), // the electron package's own dependencies
        ELECTRON_MIRROR: 'http://127.0.0.1:9/',
        ELECTRON_OVERRIDE_DIST_PATH: '',
        electron_config_cache: path.join(app, 'cache'),
        force_no_cache: 'true',
      },
    });
    const lines = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim());
    expect(lines, `${r.stdout}${r.stderr}`).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^npm start: the Electron \d+\.\d+\.\d+ binary could not be downloaded \(.+\); `npm run serve` opens the same app in a browser/,
    );
    expect(r.status).toBe(1);
  });
});
