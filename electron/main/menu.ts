import type * as Electron from 'electron';

/** Native menus with the standard roles; Help opens the project's pages and checks for updates. */
export function menuTemplate(opts: {
  isMac: boolean;
  appName: string;
  revealDataDir: () => void;
  openHelp: () => void;
  checkForUpdates: () => void;
}): Electron.MenuItemConstructorOptions[] {
  const t: Electron.MenuItemConstructorOptions[] = [];
  if (opts.isMac) t.push({ label: opts.appName, role: 'appMenu' });
  t.push(
    {
      role: 'fileMenu',
      submenu: [
        { label: 'Show Data Folder', click: opts.revealDataDir },
        { type: 'separator' },
        opts.isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [
        { label: 'odr-desktop Help', click: opts.openHelp },
        { label: 'Check for Updates…', click: opts.checkForUpdates },
      ],
    },
  );
  return t;
}
