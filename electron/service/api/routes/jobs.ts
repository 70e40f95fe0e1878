import { Hono } from 'hono';
import { JobCreateBody, JobUpdateBody, WorkerJobBody } from '../../../../shared/schemas/job.js';
import type { AppEnv } from '../auth.js';
import { parsedJson } from '../body.js';
import type { Domain } from '../../domain/domain.js';
import { badRequest } from '../../domain/errors.js';
import { jobResponse } from '../../domain/jobs.js';

const jobId = (raw: string | undefined): number => {
  if (raw === undefined) return 9_999_999; // the real server's default: not found
  if (!/^\d+$/.test(raw)) throw badRequest(`Job id must be an integer, not "${raw}"`);
  return Number(raw);
};
const types = (raw: string) => raw.split('|').filter(Boolean);

/** The tracked-job routes (contract: job endpoints; docs/odr-server.md §5.18 for what it leaves open). */
export function jobRoutes(d: Domain) {
  const app = new Hono<AppEnv>();

  app.post('/job', async (c) => {
    const body = await parsedJson(c, JobCreateBody);
    const user = d.users.actAs(c.get('user'), body.user_email);
    return c.json(jobResponse(d.jobs.create(user, body.job)));
  });

  app.put('/job', async (c) => {
    const body = await parsedJson(c, JobUpdateBody);
    const user = d.users.actAs(c.get('user'), body.user_email);
    return c.json(jobResponse(d.jobs.update(user, body.job)));
  });

  app.post('/worker/job', async (c) => {
    const body = await parsedJson(c, WorkerJobBody);
    d.users.actAs(c.get('user'), body.user_email);
    return c.json(d.jobs.workerUnit(body.job));
  });

  const status = (c: import('hono').Context<AppEnv>) => {
    const full = c.req.param('full');
    if (full !== undefined && !/^\d$/.test(full))
      throw badRequest(`The last segment must be one digit (0 = stored values, 1 = recount), not "${full}"`);
    const user = d.users.actAs(c.get('user'), c.req.query('user_email'));
    return c.json(jobResponse(d.jobs.status(user, jobId(c.req.param('id')), full === undefined ? 1 : Number(full))));
  };
  app.get('/job/status/:id/:full', status);
  app.get('/job/status/:id', status);
  app.get('/job/status', status);

  const complete = (c: import('hono').Context<AppEnv>) => {
    const user = d.users.actAs(c.get('user'), c.req.query('user_email'));
    return c.json(jobResponse(d.jobs.complete(user, jobId(c.req.param('id')))));
  };
  app.get('/job/complete/:id', complete);
  app.get('/job/complete', complete);

  app.get('/job/cancel/:id?', (c) => {
    const user = d.users.actAs(c.get('user'), c.req.query('user_email'));
    return c.json(d.jobs.cancel(user, jobId(c.req.param('id'))));
  });

  app.get('/jobs/completed/:type/:count?', (c) => {
    const count = c.req.param('count');
    if (count !== undefined && !/^\d+$/.test(count)) throw badRequest(`count must be an integer, not "${count}"`);
    const user = d.users.actAs(c.get('user'), c.req.query('user_email'));
    return c.json({ jobs: d.jobs.completed(user, types(c.req.param('type')), count === undefined ? 5 : Math.min(Number(count), 1000)) });
  });

  app.get('/jobs/:type', (c) => {
    const user = d.users.actAs(c.get('user'), c.req.query('user_email'));
    return c.json({ jobs: d.jobs.running(user, types(c.req.param('type'))) });
  });
  return app;
}
