import { Hono } from 'hono';
import { UserCreate, UserUpdate } from '../../../../shared/schemas/users.js';
import type { AppEnv } from '../auth.js';
import { formFields, parsedJson } from '../body.js';
import type { Domain } from '../../domain/domain.js';
import { createUser, ensureUser, grantRole, listUsers, updateUser } from '../../domain/userAdmin.js';
import { apiBase } from './context.js';

/** POST /user and POST /user/permissions, as the real server (form bodies). */
export function userRoutes(d: Domain) {
  const app = new Hono<AppEnv>();
  app.post('/user', async (c) => {
    const form = await formFields(c);
    const { user, datasets } = await ensureUser(d, c.get('user'), form);
    return c.json({ user_email: user.email, datasets: datasets(apiBase(c)) });
  });
  app.post('/user/permissions', async (c) => {
    const form = await formFields(c);
    grantRole(d, c.get('user'), form);
    return c.json({ success: 'true' });
  });
  return app;
}

/** /local/users: the Users screen (super-users). */
export function localUserRoutes(d: Domain) {
  const app = new Hono<AppEnv>();
  app.get('/users', (c) => c.json({ users: listUsers(d, c.get('user')) }));
  app.post('/users', async (c) => c.json(await createUser(d, c.get('user'), await parsedJson(c, UserCreate))));
  app.put('/users/:id{[0-9]+}', async (c) => {
    const change = await parsedJson(c, UserUpdate);
    return c.json(await updateUser(d, c.get('user'), Number(c.req.param('id')), change));
  });
  return app;
}
