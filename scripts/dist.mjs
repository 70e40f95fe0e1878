#!/usr/bin/env node
// `npm run dist [-- electron-builder args]`: installers for this OS with electron-builder.
// electron-builder rebuilds better-sqlite3 in node_modules for Electron (npmRebuild), which
// breaks it for Node; the Node build is restored afterwards, and builder's exit code is ours.
import { spawnSync } from 'node:child_process';

const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', shell: process.platform === 'win32' }).status ?? 1;

let code = run(process.execPath, ['scripts/native.mjs', 'electron']);
if (code === 0) code = run('npm', ['run', 'build', '--silent']);
if (code === 0) code = run('npx', ['electron-builder', '--config', 'build/electron-builder.yml', ...process.argv.slice(2)]);
const restored = run(process.execPath, ['scripts/native.mjs', 'node']);
process.exit(code || restored);
