import { Hono } from 'hono';
import type { AppEnv } from '../auth.js';
import type { Domain } from '../../domain/domain.js';
import { datasetQuota } from '../../domain/files/quota.js';

export function quotaRoutes(d: Domain) {
  return new Hono<AppEnv>().get('/dataset/quota/:uuid', (c) => {
    const user = d.users.actAs(c.get('user'), c.req.query('user_email'));
    return c.json({ total_bytes: datasetQuota(d, user, c.req.param('uuid')) });
  });
}
