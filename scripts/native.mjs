#!/usr/bin/env node
// better-sqlite3 is a native module: Node and Electron need builds for different ABIs.
// node_modules always keeps the Node build (tests, `npm run serve`); the Electron build lives in
// .native/electron-<version>-<platform>-<arch>/ and is handed to the service as nativeBinding.
// So `npm test` works after `npm start` and the other way round, with no rebuild in between.
//
//   node scripts/native.mjs node      verify the Node build loads; rebuild from source if not
//   node scripts/native.mjs electron  make sure the Electron build exists; build it if not
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'package.json'));
const mode = process.argv[2];

function nodeBuildLoads() {
  const r = spawnSync(process.execPath, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { cwd: root, encoding: 'utf8' });
  return { ok: r.status === 0, why: (r.stderr || '').split('\n').find((l) => /NODE_MODULE_VERSION|Error/.test(l)) ?? '' };
}

export function electronBindingPath(version = require('electron/package.json').version) {
  return path.join(root, '.native', `electron-${version}-${process.platform}-${process.arch}`, 'better_sqlite3.node');
}

if (mode === 'node') {
  const first = nodeBuildLoads();
  if (!first.ok) {
    console.log(`better-sqlite3 does not load in Node ${process.version} (${first.why.trim()}); rebuilding it from source for Node…`);
    const r = spawnSync('npm', ['rebuild', 'better-sqlite3', '--build-from-source'], {
      cwd: root,
      stdio: 'inherit',
      shell: process.platform === 'win32',
    });
    if (r.status !== 0 || !nodeBuildLoads().ok) {
      console.error('error: could not build better-sqlite3 for Node; see the output above');
      process.exit(1);
    }
    console.log('better-sqlite3 rebuilt for Node.');
  }
} else if (mode === 'electron') {
  const version = require('electron/package.json').version;
  const target = electronBindingPath(version);
  if (!existsSync(target)) {
    console.log(`building better-sqlite3 for Electron ${version} (once; kept in ${path.relative(root, target)})…`);
    // Build in a scratch copy so the Node build in node_modules is never touched.
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'odr-native-'));
    try {
      writeFileSync(
        path.join(scratch, 'package.json'),
        JSON.stringify({ name: 'scratch', version: '0.0.0', dependencies: { 'better-sqlite3': '*' } }),
      );
      const src = path.dirname(require.resolve('better-sqlite3/package.json'));
      cpSync(src, path.join(scratch, 'node_modules', 'better-sqlite3'), {
        recursive: true,
        filter: (p) => !p.includes(`${path.sep}build${path.sep}`),
      });
      const { rebuild } = require('@electron/rebuild');
      await rebuild({ buildPath: scratch, electronVersion: version, onlyModules: ['better-sqlite3'], force: true });
      mkdirSync(path.dirname(target), { recursive: true });
      copyFileSync(path.join(scratch, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), target);
      console.log('done.');
    } catch (e) {
      console.error(`error: could not build better-sqlite3 for Electron ${version}: ${e instanceof Error ? e.message : e}`);
      console.error('It needs the Electron headers (or a prebuilt binary) from the network, plus a C++ toolchain.');
      process.exit(1);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
} else {
  console.error('usage: node scripts/native.mjs node|electron');
  process.exit(2);
}
