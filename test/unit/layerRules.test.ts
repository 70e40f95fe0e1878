import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/service.js';

// The layer rules of `npm run lint` (.dependency-cruiser.cjs) catch each kind of breach: a
// scratch tree with one offending import per rule must produce exactly those rule names.
const dir = tempDir('odr-layers-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const files: Record<string, string> = {
  'shared/a.ts': "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n",
  'electron/service/store/s.ts': "import { d } from '../domain/d.js';\nexport const s = d;\n",
  'electron/service/domain/d.ts': 'export const d = 1;\n',
  'electron/service/domain/sql.ts': "import Database from 'better-sqlite3';\nexport const sql = Database;\n",
  'electron/service/store/ok.ts': "import Database from 'better-sqlite3';\nexport const ok = Database;\n",
  'electron/service/domain/c1.ts': "import { c2 } from './c2.js';\nexport const c1 = () => c2;\n",
  'electron/service/domain/c2.ts': "import { c1 } from './c1.js';\nexport const c2 = () => c1;\n",
  // A cycle closed only by `import type` is erased at compile time: allowed.
  'electron/service/domain/t1.ts': "import type { T2 } from './t2.js';\nexport interface T1 { next?: T2 }\n",
  'electron/service/domain/t2.ts': "import type { T1 } from './t1.js';\nexport interface T2 { next?: T1 }\nexport const t2 = 1;\n",
  'electron/service/domain/up.ts': "import { api } from '../api/api.js';\nexport const up = api;\n",
  'electron/service/api/api.ts': 'export const api = 1;\n',
  'electron/service/sync/sy.ts': "import { api } from '../api/api.js';\nexport const sy = api;\n",
  'electron/service/host/wire.ts': 'export const wire = 1;\n',
  'electron/main/m.ts':
    "import { d } from '../service/domain/d.js';\nimport { wire } from '../service/host/wire.js';\nexport const m = [d, wire];\n",
  'renderer/src/r.ts': "import { api } from '../../electron/service/api/api.js';\nexport const r = api;\n",
};

describe('layer rules', () => {
  it('name every breach: platform in shared, SQLite outside store, upward imports, main past the host, renderer past HTTP, runtime cycles', () => {
    for (const [f, src] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      writeFileSync(path.join(dir, f), src);
    }
    cpSync(path.join(ROOT, '.dependency-cruiser.cjs'), path.join(dir, '.dependency-cruiser.cjs'));
    // Packages resolve as in the repository (the SQLite rule names node_modules/better-sqlite3).
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowJs: true } }),
    );
    const bin = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
    const r = spawnSync(
      process.execPath,
      [bin, '--config', '.dependency-cruiser.cjs', '--output-type', 'json', 'electron', 'shared', 'renderer'],
      { cwd: dir, encoding: 'utf8', timeout: 120_000 },
    );
    const out = JSON.parse(r.stdout) as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
    const seen = out.summary.violations.map((v) => `${v.rule.name} ${v.from}`).sort();
    expect(seen).toEqual([
      'domain-below-api-and-sync electron/service/domain/up.ts',
      'main-reaches-service-host-only electron/main/m.ts',
      'no-cycles electron/service/domain/c1.ts',
      'only-store-opens-sqlite electron/service/domain/sql.ts',
      'renderer-through-http renderer/src/r.ts',
      'shared-is-self-contained shared/a.ts',
      'store-uses-shared-only electron/service/store/s.ts',
      'sync-over-domain electron/service/sync/sy.ts',
    ]);
  });
});
