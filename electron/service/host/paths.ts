import os from 'node:os';
import path from 'node:path';

export const APP_NAME = 'odr-desktop';
export const DEFAULT_PORT = 8460;

/**
 * The per-user data dir: Electron's userData for this app plus /data, so `npm run serve` and
 * the desktop app open the same database. ODR_DATA_DIR overrides it.
 */
export function defaultDataDir(): string {
  if (process.env.ODR_DATA_DIR) return process.env.ODR_DATA_DIR;
  const home = os.homedir();
  const appData =
    process.platform === 'darwin'
      ? path.join(home, 'Library', 'Application Support')
      : process.platform === 'win32'
        ? (process.env.APPDATA ?? path.join(home, 'AppData', 'Roaming'))
        : (process.env.XDG_CONFIG_HOME ?? path.join(home, '.config'));
  return path.join(appData, APP_NAME, 'data');
}
