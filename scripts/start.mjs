#!/usr/bin/env node
// `npm start`: fetch the Electron binary (the electron package downloads it on first use),
// build better-sqlite3 for Electron's ABI, bundle, and open the app. Where a step that needs
// the network cannot finish, say so in one line and point at `npm run serve`, which opens the
// same app in a browser without Electron. Exit codes: 0 app closed normally, 1 a step failed.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FALLBACK = '`npm run serve` opens the same app in a browser without Electron';

/** The last line of a failed step's output that names an error, without stack frames. */
function reasonOf(output) {
  const lines = String(output)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('at ') && !/^node:/.test(l));
  const named = lines.filter((l) => /error|ENOTFOUND|ECONNREFUSED|EAI_AGAIN|ETIMEDOUT|cannot|could not|failed/i.test(l));
  const pick =
    named.find((l) => /^\w*Error:|ENOTFOUND|ECONNREFUSED|EAI_AGAIN|ETIMEDOUT/.test(l)) ?? named.at(-1) ?? lines.at(-1) ?? 'no output';
  return pick.replace(/^error:\s*/i, '').slice(0, 200);
}

function fail(what, output) {
  console.error(`npm start: ${what} (${reasonOf(output)}); ${FALLBACK}.`);
  process.exit(1);
}

function step(args, what, inherit = false) {
  const r = spawnSync(args[0], args.slice(1), {
    cwd: root,
    encoding: 'utf8',
    stdio: inherit ? 'inherit' : 'pipe',
    shell: process.platform === 'win32',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) fail(what, `${r.stdout ?? ''}\n${r.stderr ?? ''}\n${r.error?.message ?? ''}`);
  return r.stdout;
}

// 1. The binary: requiring the electron package resolves its path, downloading it if missing.
const version = JSON.parse(
  step(
    [process.execPath, '-p', "JSON.stringify(require('electron/package.json').version)"],
    'the electron package is not installed (run npm install)',
  ),
);
const bin = step(
  [process.execPath, '-e', "process.stdout.write(require('electron'))"],
  `the Electron ${version} binary could not be downloaded`,
);
// 2. better-sqlite3 for Electron's ABI (needs Electron's headers from the network once).
step([process.execPath, 'scripts/native.mjs', 'electron'], `better-sqlite3 could not be built for Electron ${version}`);
// 3. Renderer and main-process bundles (compiler output shown: it is the developer's to read).
step(['npm', 'run', 'build', '--silent'], 'the build failed', true);
// 4. The app; its exit code is ours.
const child = spawn(bin, ['.', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('error', (e) => fail(`Electron could not be started from ${bin}`, e.message));
child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
