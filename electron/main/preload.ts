// The renderer's only bridge to the main process: a few narrow, typed calls. Data never goes
// through here — the renderer reaches it over HTTP on the app scheme like any client.
import { contextBridge, ipcRenderer } from 'electron';
import type { DesktopBridge } from '../../shared/desktopBridge.js';

const bridge: DesktopBridge = {
  appInfo: () => ipcRenderer.invoke('odr:app-info'),
  revealDataDir: () => ipcRenderer.invoke('odr:reveal-data-dir'),
  openExternal: (url) => ipcRenderer.invoke('odr:open-external', String(url)),
  loopback: () => ipcRenderer.invoke('odr:loopback'),
  setLoopback: (s) => ipcRenderer.invoke('odr:set-loopback', { enabled: !!s.enabled, port: Number(s.port) }),
};

contextBridge.exposeInMainWorld('odrDesktop', bridge);
