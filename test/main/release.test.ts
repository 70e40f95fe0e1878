import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/service.js';

// The release workflow is checked by @action-validator/cli (GitHub's workflow schema) and for
// the steps a release needs; the validator is first shown to reject a broken workflow.
const require = createRequire(path.join(ROOT, 'package.json'));
const pkg = require('@action-validator/cli/package.json') as { bin: string | Record<string, string> };
const cli = path.join(
  path.dirname(require.resolve('@action-validator/cli/package.json')),
  typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin)[0]!,
);
const validate = (file: string) => spawnSync(process.execPath, [cli, file], { encoding: 'utf8', timeout: 60_000 });
const WORKFLOWS = path.join(ROOT, '.github', 'workflows');
const scratch = tempDir('odr-workflow-');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('release workflow', () => {
  it('the validator rejects a workflow GitHub would reject', () => {
    const bad = path.join(scratch, 'bad.yml');
    writeFileSync(
      bad,
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n        run: echo both\n',
    );
    expect(validate(bad).status).not.toBe(0);
  });

  it.each(readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f)))('%s is a valid GitHub workflow', (f) => {
    const r = validate(path.join(WORKFLOWS, f));
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  });

  it('builds on Linux, macOS and Windows: npm ci, npm test, Electron e2e under xvfb, dist, installers uploaded', () => {
    const y = readFileSync(path.join(WORKFLOWS, 'release.yml'), 'utf8');
    expect(y).toMatch(/os: \[ubuntu-latest, macos-latest, windows-latest\]/);
    const runs = [...y.matchAll(/^\s+run: (.+)$/gm)].map((m) => m[1]!);
    expect(runs).toEqual(
      expect.arrayContaining([
        'npm ci --no-audit --no-fund',
        'npm test',
        'xvfb-run -a npx playwright test e2e/electron.spec.ts',
        expect.stringMatching(/^npm run dist -- --publish /),
      ]),
    );
    expect(y).toMatch(/uses: actions\/upload-artifact@v4[\s\S]*release\/\*\.AppImage[\s\S]*release\/\*\.dmg[\s\S]*release\/\*\.exe/);
    expect(y).toMatch(/ODR_REQUIRE_ELECTRON: '1'\s+run: xvfb-run/);
  });

  it('electron-builder publishes to GitHub releases, where electron-updater looks', () => {
    const b = readFileSync(path.join(ROOT, 'build', 'electron-builder.yml'), 'utf8');
    expect(b).toMatch(/publish:\s+- provider: github/);
    const p = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(p.dependencies['electron-updater']).toBeDefined();
  });
});
