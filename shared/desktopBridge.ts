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
