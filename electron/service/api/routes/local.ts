import { Hono } from 'hono';
import type { AppEnv, Tokens } from '../auth.js';
import type { Domain } from '../../domain/domain.js';
import { OdrError } from '../../domain/errors.js';
import type { LocalSession, SessionUser } from '../../../../shared/schemas/local.js';

// Our own routes, outside the ODR interface (documented in the README).

/** The desktop app's privileged scheme (electron/main registers it; the service only recognises it). */
export const APP_SCHEME = 'odr';

const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/i;

export interface SessionPolicy {
  /** Hand the first super-user's token to the app's own page without a password. */
  autoLogin: boolean;
}

/**
 * POST /local/session: the desktop/serve UI logs in as the first-run user without asking.
 * Only same-origin requests to a loopback Host are answered, so another web page (or a
 * DNS-rebinding trick) cannot obtain the token.
 */
export function sessionRoutes(d: Domain, tokens: Tokens, policy: SessionPolicy) {
  return new Hono<AppEnv>().post('/session', async (c) => {
    if (!policy.autoLogin) throw new OdrError(403, 'Automatic login is off; use POST /api/v4/token');
    // Electron's app scheme never arrives over a socket: only its protocol handler makes such URLs.
    const url = new URL(c.req.url);
    const origin = c.req.header('origin');
    if (url.protocol === `${APP_SCHEME}:`) {
      if (origin !== undefined && origin !== `${APP_SCHEME}://${url.host}`)
        throw new OdrError(403, 'Automatic login is only for the local app');
    } else {
      const host = c.req.header('host') ?? '';
      if (!LOOPBACK_HOST.test(host)) throw new OdrError(403, 'Automatic login is only for the local app');
      if (origin !== undefined && origin !== `http://${host}`) throw new OdrError(403, 'Automatic login is only for the local app');
    }
    const user = d.users.firstSuperUser();
    if (!user) throw new OdrError(503, 'No user exists yet');
    return c.json({
      token: await tokens.issue(user),
      user: { email: user.email, name: user.display, super_user: user.isSuper },
    } satisfies LocalSession);
  });
}

export function whoamiRoutes() {
  return new Hono<AppEnv>().get('/whoami', (c) => {
    const u = c.get('user');
    return c.json({ email: u.email, name: u.display, super_user: u.isSuper } satisfies SessionUser);
  });
}
