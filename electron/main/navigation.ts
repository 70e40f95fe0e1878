export const APP_SCHEME = 'odr';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/** What a navigation or window.open may do: stay in the app, go to the system browser, or nothing. */
export function navigationPolicy(url: string): 'allow' | 'external' | 'deny' {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'deny';
  }
  if (u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST) return 'allow';
  if (u.protocol === 'https:' || u.protocol === 'http:' || u.protocol === 'mailto:') return 'external';
  return 'deny';
}
