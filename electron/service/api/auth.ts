import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { createMiddleware } from 'hono/factory';
import type { Context } from 'hono';
import type { Domain } from '../domain/domain.js';
import { OdrError } from '../domain/errors.js';
import type { User } from '../domain/users.js';
import { metaStore } from '../store/meta.js';

export type AppEnv = { Variables: { user: User } };

interface Verified {
  /** The user's id, never the User: roles and super-user status are read fresh on every use. */
  userId: number;
  exp: number;
}

const CACHE_MAX = 1024;

/**
 * JWTs for POST /token (HS256 with a per-data-dir secret) and their verification. Verified
 * tokens are remembered until they expire, so a read costs a map lookup, not an HMAC. What is
 * remembered is who the token names; the User (super-user flag, roles) comes from Users, which
 * rereads it after any change, so a demotion or a revoked role counts from the next request.
 */
export class Tokens {
  private readonly key: Uint8Array;
  private readonly cache = new Map<string, Verified>();

  constructor(private readonly d: Domain) {
    const meta = metaStore(d.ctx.db);
    let secret = meta.get('jwt_secret');
    if (!secret) {
      secret = randomBytes(32).toString('base64');
      meta.insert('jwt_secret', secret);
    }
    this.key = Buffer.from(secret, 'base64');
  }

  async issue(user: User): Promise<string> {
    const now = Math.floor(this.d.ctx.clock().getTime() / 1000);
    return new SignJWT({ username: user.email, roles: user.isSuper ? ['ROLE_SUPER_ADMIN', 'ROLE_USER'] : ['ROLE_USER'] })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(now)
      .setExpirationTime(now + this.d.ctx.config.tokenTtlSeconds)
      .sign(this.key);
  }

  /** The user of a token verified before and not expired, without any async work; else null. */
  known(token: string): User | null {
    const hit = this.cache.get(token);
    return hit && hit.exp > Math.floor(this.d.ctx.clock().getTime() / 1000) ? (this.d.users.get(hit.userId) ?? null) : null;
  }

  async verify(token: string): Promise<User> {
    const now = Math.floor(this.d.ctx.clock().getTime() / 1000);
    const hit = this.cache.get(token);
    if (hit) {
      if (hit.exp <= now) {
        this.cache.delete(token);
        throw new OdrError(401, 'Expired JWT Token');
      }
      const user = this.d.users.get(hit.userId);
      if (user) return user;
      this.cache.delete(token); // the user is gone: verify again, which names the problem
    }
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], currentDate: new Date(now * 1000) }));
    } catch (e) {
      throw new OdrError(401, e instanceof joseErrors.JWTExpired ? 'Expired JWT Token' : 'Invalid JWT Token');
    }
    const email = typeof payload.username === 'string' ? payload.username : '';
    const user = this.d.users.findByEmail(email);
    if (!user) throw new OdrError(401, `Unable to load an user with property "username" = "${email}"`);
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(token, { userId: user.id, exp: payload.exp ?? 0 });
    return user;
  }
}

function bearer(c: Context): string | undefined {
  const h = c.req.header('authorization');
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  if (!m) throw new OdrError(401, 'Invalid JWT Token');
  return m[1];
}

/** Bearer JWT required (every ODR route but /token). */
export const requireBearer = (tokens: Tokens) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const token = bearer(c);
    if (!token) throw new OdrError(401, 'JWT Token not found');
    c.set('user', await tokens.verify(token));
    await next();
  });

/** Job routes: the seed's `x-auth` API token, or a Bearer JWT as real clients send. */
export const requireJobAuth = (tokens: Tokens, d: Domain) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const apiToken = c.req.header('x-auth');
    if (apiToken !== undefined) {
      const user = d.users.byApiToken(apiToken);
      if (!user) throw new OdrError(401, 'Invalid API token (x-auth)');
      c.set('user', user);
      return next();
    }
    const token = bearer(c);
    if (!token) throw new OdrError(401, 'An x-auth API token or a Bearer JWT is required');
    c.set('user', await tokens.verify(token));
    await next();
  });

/** File downloads also take `?access_token=` so <img src> and links work without headers. */
export const requireBearerOrQuery = (tokens: Tokens) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const token = bearer(c) ?? c.req.query('access_token');
    if (!token) throw new OdrError(401, 'JWT Token not found');
    c.set('user', await tokens.verify(token));
    await next();
  });
