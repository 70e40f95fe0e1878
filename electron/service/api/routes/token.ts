import { Hono } from 'hono';
import type { AppEnv, Tokens } from '../auth.js';
import { jsonBody } from '../body.js';
import type { Domain } from '../../domain/domain.js';
import { OdrError, badRequest } from '../../domain/errors.js';

/** POST /token: JSON {username, password} → {"token": JWT} (docs/odr-server.md §2.2). */
export function tokenRoutes(d: Domain, tokens: Tokens) {
  return new Hono<AppEnv>().post('/token', async (c) => {
    const body = await jsonBody(c).catch(() => {
      throw badRequest('Invalid JSON.');
    });
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('Invalid JSON.');
    const { username, password } = body as Record<string, unknown>;
    for (const [k, v] of [
      ['username', username],
      ['password', password],
    ] as const) {
      if (v === undefined) throw badRequest(`The key "${k}" must be provided.`);
      if (typeof v !== 'string') throw badRequest(`The key "${k}" must be a string.`);
    }
    const user = await d.users.authenticate(username as string, password as string);
    if (!user) throw new OdrError(401, 'Invalid credentials.');
    return c.json({ token: await tokens.issue(user) });
  });
}
