import type * as Electron from 'electron';

/**
 * The parts of Electron the shell uses, passed in rather than imported: the real module in the
 * app, small stand-ins in the Node tests (this machine cannot run the Electron binary).
 */
export interface ElectronApi {
  app: Pick<Electron.App, 'whenReady' | 'on' | 'quit' | 'getPath' | 'getVersion' | 'requestSingleInstanceLock' | 'isPackaged' | 'exit'>;
  protocol: Pick<Electron.Protocol, 'registerSchemesAsPrivileged' | 'handle'>;
  BrowserWindow: new (opts: Electron.BrowserWindowConstructorOptions) => Electron.BrowserWindow;
  shell: Pick<Electron.Shell, 'openExternal' | 'showItemInFolder' | 'openPath'>;
  session: { defaultSession: Pick<Electron.Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'> };
  Menu: Pick<typeof Electron.Menu, 'buildFromTemplate' | 'setApplicationMenu'>;
  ipcMain: Pick<Electron.IpcMain, 'handle'>;
  screen?: Pick<Electron.Screen, 'getAllDisplays'>;
  dialog?: Pick<Electron.Dialog, 'showMessageBox'>;
  safeStorage?: Pick<Electron.SafeStorage, 'isEncryptionAvailable' | 'encryptString' | 'decryptString'>;
}
