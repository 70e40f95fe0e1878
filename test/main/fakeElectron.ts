import { EventEmitter } from 'node:events';
import type { ElectronApi } from '../../electron/main/electronApi.js';

// Stand-ins for the Electron APIs the shell touches (the Electron binary cannot run here).
// They record what the shell asked for; the service behind them is the real one.

type Handler = (...args: any[]) => any; // eslint-disable-line @typescript-eslint/no-explicit-any

export class FakeContents extends EventEmitter {
  openHandler: Handler | null = null;
  setWindowOpenHandler(h: Handler) {
    this.openHandler = h;
  }
}

export class FakeWindow extends EventEmitter {
  static all: FakeWindow[] = [];
  webContents = new FakeContents();
  url = '';
  progress: number[] = [];
  focused = 0;
  destroyed = false;
  bounds = { x: 40, y: 30, width: 1200, height: 800 };
  constructor(readonly opts: Record<string, unknown>) {
    super();
    FakeWindow.all.push(this);
  }
  async loadURL(url: string) {
    this.url = url;
  }
  maximize() {}
  show() {}
  isDestroyed() {
    return this.destroyed;
  }
  isMinimized() {
    return false;
  }
  restore() {}
  focus() {
    this.focused++;
  }
  setProgressBar(f: number) {
    this.progress.push(f);
  }
  getNormalBounds() {
    return this.bounds;
  }
  isMaximized() {
    return false;
  }
}

export function fakeElectron(userData: string, opts: { lock?: boolean; packaged?: boolean } = {}) {
  const app = new EventEmitter() as EventEmitter & Record<string, unknown>;
  const calls = {
    quit: 0,
    exit: [] as number[],
    external: [] as string[],
    opened: [] as string[],
    schemes: [] as unknown[],
    menu: null as unknown,
    dialogs: [] as Record<string, unknown>[],
  };
  const handlers = new Map<string, Handler>();
  const ipc = new Map<string, Handler>();
  let permission: Handler | null = null;
  let permissionCheck: Handler | null = null;
  const api = {
    app: Object.assign(app, {
      whenReady: () => Promise.resolve(),
      quit: () => {
        calls.quit++;
      },
      exit: (code: number) => {
        calls.exit.push(code);
      },
      getPath: () => userData,
      getVersion: () => '0.1.0-test',
      requestSingleInstanceLock: () => opts.lock ?? true,
      isPackaged: opts.packaged ?? false,
    }),
    protocol: {
      registerSchemesAsPrivileged: (s: unknown[]) => {
        calls.schemes.push(...s);
      },
      handle: (scheme: string, h: Handler) => {
        handlers.set(scheme, h);
      },
    },
    BrowserWindow: FakeWindow,
    shell: {
      openExternal: async (u: string) => {
        calls.external.push(u);
      },
      showItemInFolder: () => {},
      openPath: async (p: string) => {
        calls.opened.push(p);
        return '';
      },
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (h: Handler) => {
          permission = h;
        },
        setPermissionCheckHandler: (h: Handler) => {
          permissionCheck = h;
        },
      },
    },
    Menu: {
      buildFromTemplate: (t: unknown) => t,
      setApplicationMenu: (m: unknown) => {
        calls.menu = m;
      },
    },
    ipcMain: {
      handle: (c: string, h: Handler) => {
        ipc.set(c, h);
      },
    },
    dialog: {
      showMessageBox: async (o: Record<string, unknown>) => {
        calls.dialogs.push(o);
        return { response: 0, checkboxChecked: false };
      },
    },
    screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
  } as unknown as ElectronApi;
  return {
    api,
    calls,
    handlers,
    ipc,
    permission: () => permission!,
    permissionCheck: () => permissionCheck!,
    emitApp: (event: string, ...args: unknown[]) => app.emit(event, ...args),
  };
}
