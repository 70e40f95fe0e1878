// What the Electron preload exposes to the renderer as `window.odrDesktop` (absent in a plain
// browser): a few narrow calls, never data — data goes over HTTP like for any client.

export interface LoopbackState {
  settings: { enabled: boolean; port: number };
  /** The API address while the listener runs. */
  url: string | null;
}

export interface DesktopBridge {
  appInfo: () => Promise<{ version: string; dataDir: string }>;
  revealDataDir: () => Promise<string>;
  openExternal: (url: string) => Promise<void>;
  loopback: () => Promise<LoopbackState>;
  setLoopback: (s: { enabled: boolean; port: number }) => Promise<LoopbackState>;
}

/**
 * The IPC channel of each bridge call: the one table preload.ts invokes and shell.ts handles.
 * A call's arguments and answer are those of its DesktopBridge method.
 */
export const IPC_CHANNELS = {
  appInfo: 'odr:app-info',
  revealDataDir: 'odr:reveal-data-dir',
  openExternal: 'odr:open-external',
  loopback: 'odr:loopback',
  setLoopback: 'odr:set-loopback',
} as const satisfies Record<keyof DesktopBridge, `odr:${string}`>;

export type BridgeCall = keyof DesktopBridge;
export type BridgeArgs<K extends BridgeCall> = Parameters<DesktopBridge[K]>;
export type BridgeAnswer<K extends BridgeCall> = Awaited<ReturnType<DesktopBridge[K]>>;
