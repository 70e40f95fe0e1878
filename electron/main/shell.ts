import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type * as Electron from 'electron';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { connectService, type ServiceChild, type ServiceConnection } from './serviceProcess.js';
import type { TrackedJob } from '../../shared/schemas/job.js';
import { IPC_CHANNELS, type BridgeAnswer, type BridgeCall } from '../../shared/desktopBridge.js';
import type { ElectronApi } from './electronApi.js';
import { trackJobProgress } from './jobProgress.js';
import { menuTemplate } from './menu.js';
import { APP_HOST, APP_ORIGIN, APP_SCHEME, navigationPolicy } from './navigation.js';
import { loadBounds, saveBounds } from './windowState.js';
import { updateMenuAction, type Updater } from './updates.js';

// The Electron shell: starts the service in its own process, routes the app scheme to it, opens
// a locked-down window, and shuts the service down cleanly. It only brokers (window, menus,
// protocol, IPC); no business rules and no SQLite live here (docs/architecture.md).

export interface ShellOptions {
  /** Built renderer (dist/renderer). */
  rendererDist: string;
  /** Bundled preload script. */
  preload: string;
  /** better-sqlite3 built for Electron's ABI (dev runs; packaged apps carry it in node_modules). */
  nativeBinding?: string;
  /** Defaults to <userData>/data. */
  dataDir?: string;
  platform?: NodeJS.Platform;
  /** electron-updater's autoUpdater in installed builds; null in development runs. */
  updater?: Updater | null;
  /** Starts the service process: Electron's utilityProcess in the app, a Node fork in tests. */
  startService: () => ServiceChild;
}

export interface LoopbackSettings {
  enabled: boolean;
  port: number;
}

export const DEFAULT_LOOPBACK: LoopbackSettings = { enabled: false, port: 8460 };

export const WEB_PREFERENCES = (preload: string): Electron.WebPreferences => ({
  preload,
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  webviewTag: false,
  spellcheck: true,
});

export const CSP =
  "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; object-src 'none'; frame-ancestors 'none'";

/** Registered before `ready`: the app scheme is a secure, standard origin with fetch and streams. */
export function registerScheme(e: ElectronApi): void {
  e.protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true, corsEnabled: false } },
  ]);
}

/** Every app-scheme request goes to the service process; pages get the CSP header. */
export function appSchemeHandler(service: Pick<ServiceConnection, 'fetch'>) {
  return async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    if (url.host !== APP_HOST) return new Response('Not found', { status: 404 });
    const res = await service.fetch(req);
    if ((res.headers.get('content-type') ?? '').startsWith('text/html')) {
      const headers = new Headers(res.headers);
      headers.set('Content-Security-Policy', CSP);
      return new Response(res.body, { status: res.status, headers });
    }
    return res;
  };
}

/** Navigation and new windows stay in the app; web links open in the system browser. */
export function guardContents(contents: Pick<Electron.WebContents, 'on' | 'setWindowOpenHandler'>, shell: ElectronApi['shell']): void {
  contents.on('will-navigate', (event, url) => {
    const p = navigationPolicy(url);
    if (p === 'allow') return;
    event.preventDefault();
    if (p === 'external') void shell.openExternal(url);
  });
  contents.setWindowOpenHandler(({ url }) => {
    if (navigationPolicy(url) === 'external') void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/**
 * The key that seals remote passwords, itself sealed by the OS keychain (safeStorage) in
 * <userData>/sync-key.sealed; without safeStorage the service keeps a key file of its own.
 */
function secretKey(e: ElectronApi, userData: string): string | undefined {
  const safe = e.safeStorage?.isEncryptionAvailable() ? e.safeStorage : undefined;
  if (!safe) return undefined;
  const file = path.join(userData, 'sync-key.sealed');
  if (existsSync(file)) return safe.decryptString(readFileSync(file));
  const key = randomBytes(32).toString('base64');
  // Flushed before any password is sealed with it: a key lost to a power cut loses them all.
  writeFileSync(file, safe.encryptString(key), { mode: 0o600, flush: true });
  // Its name too (Windows cannot open a directory to sync it; NTFS journals names itself).
  if (process.platform !== 'win32') {
    const dir = openSync(userData, 'r');
    fsyncSync(dir);
    closeSync(dir);
  }
  return key;
}

function readJson<T>(file: string, fallback: T): T {
  try {
    return { ...fallback, ...(JSON.parse(readFileSync(file, 'utf8')) as T) };
  } catch {
    return fallback;
  }
}

export interface Shell {
  service: ServiceConnection;
  window: Electron.BrowserWindow;
  dataDir: string;
  loopback: () => { settings: LoopbackSettings; url: string | null };
  setLoopback: (s: LoopbackSettings) => Promise<{ settings: LoopbackSettings; url: string | null }>;
  quit: () => Promise<void>;
}

/**
 * Starts the desktop app: single instance, service on the per-user data dir, the app scheme,
 * a hardened window. Resolves to null when another instance already runs (it gets focus).
 */
export async function startShell(e: ElectronApi, opts: ShellOptions): Promise<Shell | null> {
  if (!e.app.requestSingleInstanceLock()) {
    e.app.quit();
    return null;
  }
  registerScheme(e);
  await e.app.whenReady();

  const userData = e.app.getPath('userData');
  const dataDir = opts.dataDir ?? path.join(userData, 'data');
  mkdirSync(dataDir, { recursive: true });
  const service = await connectService(opts.startService(), {
    dataDir,
    rendererDist: opts.rendererDist,
    nativeBinding: opts.nativeBinding,
    secretKey: secretKey(e, userData),
  });
  if (service.firstRun) {
    // Shown once in the log; the app itself logs in without asking.
    console.log(
      `first run: super-user ${service.firstRun.email}${service.firstRun.generatedPassword ? ` / ${service.firstRun.generatedPassword}` : ''}`,
    );
  }
  e.protocol.handle(APP_SCHEME, appSchemeHandler(service));

  const sess = e.session.defaultSession;
  sess.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  sess.setPermissionCheckHandler(() => false);

  const stateFile = path.join(userData, 'window-state.json');
  const bounds = loadBounds(stateFile, e.screen?.getAllDisplays().map((d) => d.workArea) ?? []);
  const win = new e.BrowserWindow({
    ...bounds,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'odr-desktop',
    backgroundColor: '#14171c',
    webPreferences: WEB_PREFERENCES(opts.preload),
  });
  if (bounds.maximized) win.maximize();
  guardContents(win.webContents, e.shell);
  win.once('ready-to-show', () => win.show());
  const remember = () => saveBounds(stateFile, { ...win.getNormalBounds(), maximized: win.isMaximized() });
  win.on('close', remember);

  const checkUpdates = updateMenuAction(
    { updater: opts.updater ?? null, currentVersion: e.app.getVersion(), isPackaged: e.app.isPackaged },
    e.dialog,
  );
  const isMac = (opts.platform ?? process.platform) === 'darwin';
  e.Menu.setApplicationMenu(
    e.Menu.buildFromTemplate(
      menuTemplate({
        isMac,
        appName: 'odr-desktop',
        revealDataDir: () => void e.shell.openPath(dataDir),
        openHelp: () => void e.shell.openExternal('https://github.com/odr-desktop/odr-desktop#readme'),
        checkForUpdates: () => void checkUpdates(),
      }),
    ),
  );

  const stopProgress = trackJobProgress(
    (l: (ev: { job: TrackedJob }) => void) => service.onJob((job) => l({ job })),
    (f) => {
      if (!win.isDestroyed()) win.setProgressBar(f);
    },
  );

  // Optional loopback listener for the user's own ODR scripts (off by default).
  const settingsFile = path.join(userData, 'settings.json');
  let loopbackSettings = readJson<LoopbackSettings>(settingsFile, DEFAULT_LOOPBACK);
  let loopbackUrl: string | null = null;
  const applyLoopback = async () => {
    loopbackUrl = null;
    loopbackUrl = await service.setLoopback(loopbackSettings);
  };
  await applyLoopback().catch((err: unknown) => console.error('[odr] loopback listener:', err));

  // Arguments come from the renderer: typed unknown and checked here.
  const handle = <K extends BridgeCall>(call: K, fn: (...args: unknown[]) => BridgeAnswer<K> | Promise<BridgeAnswer<K>>) =>
    e.ipcMain.handle(IPC_CHANNELS[call], (_ev, ...args: unknown[]) => fn(...args));
  handle('appInfo', () => ({ version: e.app.getVersion(), dataDir }));
  handle('revealDataDir', () => e.shell.openPath(dataDir));
  handle('openExternal', (url) => {
    if (typeof url === 'string' && navigationPolicy(url) === 'external') return e.shell.openExternal(url);
    return undefined;
  });
  const loopbackInfo = () => ({ settings: loopbackSettings, url: loopbackUrl });
  const setLoopback = async (s: LoopbackSettings) => {
    if (typeof s?.enabled !== 'boolean' || !Number.isInteger(s.port) || s.port < 1024 || s.port > 65535)
      throw new Error('enabled must be true/false and port 1024..65535');
    loopbackSettings = { enabled: s.enabled, port: s.port };
    writeFileSync(settingsFile, JSON.stringify(loopbackSettings));
    await applyLoopback();
    return loopbackInfo();
  };
  handle('loopback', () => loopbackInfo());
  handle('setLoopback', (s) => setLoopback(s as LoopbackSettings));

  e.app.on('second-instance', () => {
    if (win.isDestroyed()) return;
    if (win.isMinimized()) win.restore();
    win.focus();
  });

  let quitting: Promise<void> | null = null;
  const quit = () =>
    (quitting ??= (async () => {
      stopProgress();
      await service.close();
    })());
  // Hold the quit until the database is closed (checkpointed), then let it go.
  e.app.on('before-quit', (ev) => {
    if (quitting) return;
    ev.preventDefault();
    void quit().then(() => e.app.exit(0));
  });
  e.app.on('window-all-closed', () => e.app.quit());

  await win.loadURL(`${APP_ORIGIN}/`);
  return { service, window: win, dataDir, loopback: loopbackInfo, setLoopback, quit };
}
