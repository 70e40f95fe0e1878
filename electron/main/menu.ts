import type * as Electron from 'electron';

/** Native menus with the standard roles; Help opens the project's pages in the browser. */
export function menuTemplate(opts: { isMac: boolean; appName: string; revealDataDir: () => void; openHelp: () => void }): Electron.MenuItemConstructorOptions[] {
  const t: Electron.MenuItemConstructorOptions[] = [];
  if (opts.isMac) t.push({ label: opts.appName, role: 'appMenu' });
  t.push(
    { role: 'fileMenu', submenu: [{ label: 'Show Data Folder', click: opts.revealDataDir }, { type: 'separator' }, opts.isMac ? { role: 'close' } : { role: 'quit' }] },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
    { role: 'help', submenu: [{ label: 'odr-desktop Help', click: opts.openHelp }] },
  );
  return t;
}
