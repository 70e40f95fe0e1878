// Electron entry point (bundled to dist-electron/main.cjs): wires the real Electron module into
// the shell. Everything with logic lives in shell.ts and friends, tested under Node.
import path from 'node:path';
import { existsSync } from 'node:fs';
import * as electron from 'electron';
import { autoUpdater } from 'electron-updater';
import { startShell } from './shell.js';

const root = path.resolve(__dirname, '..');
const dev = !electron.app.isPackaged;
// Dev runs use the Electron build of better-sqlite3 that scripts/native.mjs keeps in .native/.
const devBinding = path.join(root, '.native', `electron-${process.versions.electron}-${process.platform}-${process.arch}`, 'better_sqlite3.node');

startShell(electron, {
  rendererDist: path.join(root, 'dist', 'renderer'),
  preload: path.join(__dirname, 'preload.cjs'),
  nativeBinding: dev && existsSync(devBinding) ? devBinding : undefined,
  dataDir: process.env.ODR_DATA_DIR,
  updater: dev ? null : autoUpdater,
}).catch((e: unknown) => {
  electron.dialog.showErrorBox('odr-desktop could not start', e instanceof Error ? `${e.message}\n\n${e.stack ?? ''}` : String(e));
  electron.app.exit(1);
});
