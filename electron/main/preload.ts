// The renderer's only bridge to the main process: a few narrow, typed calls. Data never goes
// through here — the renderer reaches it over HTTP on the app scheme like any client.
import { contextBridge, ipcRenderer } from 'electron';
import { IPC_CHANNELS, type BridgeAnswer, type BridgeArgs, type BridgeCall, type DesktopBridge } from '../../shared/desktopBridge.js';

const invoke = <K extends BridgeCall>(call: K, ...args: BridgeArgs<K>) =>
  ipcRenderer.invoke(IPC_CHANNELS[call], ...args) as Promise<BridgeAnswer<K>>;

const bridge: DesktopBridge = {
  appInfo: () => invoke('appInfo'),
  revealDataDir: () => invoke('revealDataDir'),
  openExternal: (url) => invoke('openExternal', String(url)),
  loopback: () => invoke('loopback'),
  setLoopback: (s) => invoke('setLoopback', { enabled: !!s.enabled, port: Number(s.port) }),
};

contextBridge.exposeInMainWorld('odrDesktop', bridge);
