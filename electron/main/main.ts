// Electron entry point (bundled to dist-electron/main.cjs): wires the real Electron module into
// the shell. Everything with logic lives in shell.ts and friends, tested under Node with the
// service process started by child_process.fork instead of utilityProcess.
import path from 'node:path';
import { existsSync } from 'node:fs';
import * as electron from 'electron';
import { autoUpdater } from 'electron-updater';
import { startShell } from './shell.js';

const root = path.resolve(__dirname, '..');
const dev = !electron.app.isPackaged;
// Dev runs use the Electron build of better-sqlite3 that scripts/native.mjs keeps in .native/.
const devBinding = path.join(
  root,
  '.native',
  `electron-${process.versions.electron}-${process.platform}-${process.arch}`,
  'better_sqlite3.node',
);

startShell(electron, {
  rendererDist: path.join(root, 'dist', 'renderer'),
  preload: path.join(__dirname, 'preload.cjs'),
  nativeBinding: dev && existsSync(devBinding) ? devBinding : undefined,
  dataDir: process.env.ODR_DATA_DIR,
  updater: dev ? null : autoUpdater,
  // The service (SQLite, API, jobs, sync) runs off the main process: see electron/service/host/child.ts.
  startService: () => {
    const child = electron.utilityProcess.fork(path.join(__dirname, 'service.cjs'), [], {
      serviceName: 'odr-desktop service',
      stdio: 'inherit',
    });
    return {
      post: (m) => child.postMessage(m),
      onMessage: (fn) => child.on('message', fn),
      onExit: (fn) => child.on('exit', fn),
      kill: () => {
        child.kill();
      },
    };
  },
}).catch((e: unknown) => {
  electron.dialog.showErrorBox('odr-desktop could not start', e instanceof Error ? `${e.message}\n\n${e.stack ?? ''}` : String(e));
  electron.app.exit(1);
});
