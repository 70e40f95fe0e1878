import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OdrApiError, type OdrClient } from '../../shared/client/odrClient.js';
import type { TrackedJob } from '../../shared/schemas/job.js';
import { SYNTH } from '../../bench/synthetic.js';
import { describeFixtures, fixture } from '../support/fixtures.js';
import { ADMIN, USER, startSyntheticService, type TestService } from '../support/service.js';

let t: TestService;
let apiToken: string;
let userToken: string;
let user: OdrClient;
const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: unknown) => (e instanceof OdrApiError ? e.status : -1),
  );
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: OdrApiError) => e,
  );
const started = { date: '2026-01-01 00:00:00.000000', timezone_type: 3, timezone: 'UTC' };
const upd = (job: Partial<Record<string, unknown>>) => ({
  user_email: ADMIN.email,
  job: { job_type: 'ima_update', target_entity: 'ima_page', total: 3, current: 0, started, additional_data: '{}', ...job },
});

beforeAll(async () => {
  t = await startSyntheticService(5);
  const d = t.service.domain;
  apiToken = d.users.issueApiToken(d.users.findByEmail(ADMIN.email)!.id);
  userToken = d.users.issueApiToken(d.users.findByEmail(USER.email)!.id);
  user = await t.loginAs(USER.email, USER.password);
});
afterAll(() => t.close());

describe('job routes with the x-auth API token', () => {
  it('create → worker units → status recount → complete; the job states move as documented', async () => {
    const job = await t.admin.createJob(
      { job_type: 'ima_update', target_entity: 'ima_page', total: 3, additional_data: { since: 1743580800000 } },
      apiToken,
    );
    expect(job).toMatchObject({
      job_type: 'ima_update',
      total: 3,
      current: 0,
      completed: null,
      state: 'running',
      additional_data: { since: 1743580800000 },
      // A client's target is not a dataset uuid: it reads as it was given.
      target_entity: 'ima_page',
      target_name: 'ima_page',
    });
    expect(job.started.date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/);
    // The seed's record-shaped keys are there too.
    expect(job._record_metadata._updated_date).toBeDefined();
    expect(job.fields).toEqual([]);

    for (let i = 0; i < 2; i++) {
      const unit = await t.admin.workerJob(
        { user_email: ADMIN.email, job: { tracked_job_id: job.id, random_key: `k${i}`, job_order: i, line_count: 10 } },
        apiToken,
      );
      expect(unit).toMatchObject({ job_order: i, random_key: `k${i}`, line_count: 10 });
    }
    expect((await t.admin.jobStatus(job.id, 0, apiToken)).current).toBe(0);
    expect((await t.admin.jobStatus(job.id, 1, apiToken)).current).toBe(2);
    // Units reaching total do not complete a job by themselves (docs/odr-server.md §6).
    expect((await t.admin.runningJobs(['ima_update'], apiToken)).jobs.map((j) => j.id)).toContain(job.id);

    const done = await t.admin.completeJob(job.id, apiToken);
    expect(done).toMatchObject({ current: 3, state: 'complete' });
    expect(done.completed?.date).toBeDefined();
    expect((await t.admin.runningJobs(['ima_update'], apiToken)).jobs.map((j) => j.id)).not.toContain(job.id);
    // Complete is final.
    expect(await status(t.admin.updateJob(upd({ id: job.id, current: 1 }), apiToken))).toBe(409);
  });

  it('PUT /job overwrites progress; a non-null completed completes it now', async () => {
    const job = await t.admin.createJob({ job_type: 'csv_import', target_entity: 'x', total: 10, additional_data: null }, apiToken);
    const mid = await t.admin.updateJob(
      upd({ id: job.id, job_type: 'csv_import', total: 10, current: 4, additional_data: '"half"' }),
      apiToken,
    );
    expect(mid).toMatchObject({ current: 4, state: 'running', additional_data: '"half"' });
    const fin = await t.admin.updateJob(upd({ id: job.id, job_type: 'csv_import', total: 10, current: 10, completed: started }), apiToken);
    expect(fin.state).toBe('complete');
    expect(fin.completed!.date).not.toBe(started.date);
  });

  it('cancel soft-deletes: gone from lookups, always {deleted: true}', async () => {
    const job = await t.admin.createJob({ job_type: 'mass_edit', target_entity: 'y', total: 5, additional_data: null }, apiToken);
    expect(await t.admin.cancelJob(job.id, apiToken)).toEqual({ deleted: true });
    expect(await status(t.admin.jobStatus(job.id, 1, apiToken))).toBe(404);
    expect((await t.admin.runningJobs(['mass_edit'], apiToken)).jobs).toEqual([]);
    expect(await t.admin.cancelJob(987654, apiToken)).toEqual({ deleted: true });
  });

  it('lists running jobs of several types with a|b', async () => {
    const a = await t.admin.createJob({ job_type: 'type_a', target_entity: 'a', total: 1, additional_data: null }, apiToken);
    const b = await t.admin.createJob({ job_type: 'type_b', target_entity: 'b', total: 1, additional_data: null }, apiToken);
    const list = await t.admin.runningJobs(['type_a', 'type_b'], apiToken);
    expect(list.jobs.map((j) => j.id)).toEqual([a.id, b.id]);
  });

  it("status, complete and cancel see only the caller's own jobs", async () => {
    const job = await t.admin.createJob({ job_type: 'own', target_entity: 'z', total: 1, additional_data: null }, apiToken);
    expect(await status(user.jobStatus(job.id, 1, userToken))).toBe(404);
    expect(await status(user.completeJob(job.id, userToken))).toBe(404);
    await user.cancelJob(job.id, userToken);
    expect((await t.admin.jobStatus(job.id, 0, apiToken)).state).toBe('running');
  });
});

describe('job auth and bad bodies', () => {
  it('takes x-auth or a Bearer JWT; a wrong or missing token is 401', async () => {
    const viaBearer = await t.admin.createJob({ job_type: 'bearer', target_entity: 't', total: 1, additional_data: null });
    expect(viaBearer.state).toBe('running');
    expect(await status(t.admin.createJob({ job_type: 'x', target_entity: 't', total: 1, additional_data: null }, 'not-a-token'))).toBe(
      401,
    );
    const anon = t.client();
    for (const p of ['/job/status/1/1', '/job/complete/1', '/job/cancel/1', '/jobs/x']) {
      expect((await anon.send('GET', p)).status).toBe(401);
    }
    expect((await anon.send('PUT', '/job', { json: upd({ id: 1 }) })).status).toBe(401);
    expect((await anon.send('POST', '/worker/job', { json: {} })).status).toBe(401);
  });

  it.each([
    ['PUT', '/job', { job: upd({ id: 1 }).job }, 'user_email'],
    ['PUT', '/job', { user_email: ADMIN.email, job: { ...upd({ id: 1 }).job, total: 'ten' } }, 'job.total'],
    ['PUT', '/job', { user_email: ADMIN.email, job: { ...upd({ id: 1 }).job, id: undefined } }, 'job.id'],
    ['PUT', '/job', { user_email: ADMIN.email, job: { ...upd({ id: 1 }).job, started: { date: 'yesterday' } } }, 'job.started'],
    ['PUT', '/job', { user_email: ADMIN.email, job: { ...upd({ id: 1 }).job, target_entity: 'x'.repeat(65) } }, 'job.target_entity'],
    ['PUT', '/job', { user_email: ADMIN.email, job: { ...upd({ id: 1 }).job, additional_data: undefined } }, 'job.additional_data'],
    ['POST', '/worker/job', { user_email: ADMIN.email, job: { tracked_job_id: 1, job_order: 1, line_count: 1 } }, 'job.random_key'],
    [
      'POST',
      '/worker/job',
      { user_email: ADMIN.email, job: { tracked_job_id: 'one', random_key: 'k', job_order: 1, line_count: 1 } },
      'job.tracked_job_id',
    ],
    ['POST', '/worker/job', { job: { tracked_job_id: 1, random_key: 'k', job_order: 1, line_count: 1 } }, 'user_email'],
    ['POST', '/job', { job: { target_entity: 't', total: 1, additional_data: null } }, 'job.job_type'],
    ['POST', '/job', { job: { job_type: 't', target_entity: 't', total: -1, additional_data: null } }, 'job.total'],
  ])('%s %s with a bad body is a 400 naming %s', async (method, p, body, field) => {
    const before = t.digest();
    const res = await t.admin.send(method, p, { json: body, headers: { 'x-auth': apiToken } });
    expect(res.status).toBe(400);
    const err = (await res.json()) as { error: { code: number; message: string } };
    expect(err.error.code).toBe(400);
    expect(err.error.message).toContain(field);
    expect(t.digest()).toBe(before);
  });

  it('malformed JSON, unknown ids and bad path segments', async () => {
    const raw = await fetch(`${t.api}/job`, {
      method: 'PUT',
      headers: { 'x-auth': apiToken, 'content-type': 'application/json' },
      body: '{"job": ',
    });
    expect(raw.status).toBe(400);
    expect(await status(t.admin.updateJob(upd({ id: 424242 }), apiToken))).toBe(404);
    expect((await errorOf(t.admin.updateJob(upd({ id: 424242 }), apiToken))).message).toContain("This Tracked job can't be found.");
    expect(
      await status(
        t.admin.workerJob(
          { user_email: ADMIN.email, job: { tracked_job_id: 424242, random_key: 'k', job_order: 1, line_count: 1 } },
          apiToken,
        ),
      ),
    ).toBe(404);
    expect((await t.admin.send('GET', '/job/status/abc/1', { headers: { 'x-auth': apiToken } })).status).toBe(400);
    expect((await t.admin.send('GET', '/job/status/1/xx', { headers: { 'x-auth': apiToken } })).status).toBe(400);
    expect((await t.admin.send('GET', '/job/complete', { headers: { 'x-auth': apiToken } })).status).toBe(404);
  });

  it('user_email names another user only for a super-user', async () => {
    const res = await user.send('PUT', '/job', { json: { ...upd({ id: 1 }), user_email: ADMIN.email }, headers: { 'x-auth': userToken } });
    expect(res.status).toBe(403);
  });
});

/** Reads Server-Sent Events from /local/events until `until` says stop. */
async function collectEvents(until: (jobs: TrackedJob[]) => boolean, start: () => Promise<void>): Promise<TrackedJob[]> {
  const ctrl = new AbortController();
  const res = await fetch(`${t.host.url}/local/events?access_token=${t.admin.token}`, { signal: ctrl.signal });
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const jobs: TrackedJob[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  let startedWork = false;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let i: number;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event === 'ready' && !startedWork) {
        startedWork = true;
        await start();
      }
      if (event === 'job' && data) jobs.push(JSON.parse(data) as TrackedJob);
    }
    if (until(jobs)) break;
  }
  ctrl.abort();
  return jobs;
}

describe("the service's own long operations as tracked jobs, streamed as events", () => {
  it('thumbnail rebuild: progress events arrive in order and end complete at 100 %', async () => {
    const img = await sharp({ create: { width: 900, height: 700, channels: 3, background: '#336699' } })
      .jpeg()
      .toBuffer();
    for (let i = 0; i < 4; i++) {
      await t.admin.uploadFile(
        { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(i), field_uuid: SYNTH.field('Image') },
        { blob: new Blob([img]), name: `i${i}.jpg` },
      );
    }
    let jobId = -1;
    const events = await collectEvents(
      (jobs) => jobs.some((j) => j.id === jobId && j.state !== 'running'),
      async () => {
        const r = await fetch(`${t.host.url}/local/thumbnails/${SYNTH.dataset}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${t.admin.token}` },
        });
        expect(r.status).toBe(202);
        jobId = ((await r.json()) as TrackedJob).id;
      },
    );
    const mine = events.filter((j) => j.id === jobId);
    expect(mine.length).toBeGreaterThanOrEqual(2);
    const currents = mine.map((j) => j.current);
    expect([...currents].sort((a, b) => a - b)).toEqual(currents);
    const last = mine.at(-1)!;
    expect(last).toMatchObject({ state: 'complete', current: 4, total: 4, job_type: 'rebuild_thumbnails' });
    // The dataset by uuid for programs, by name for people (the Jobs panel shows target_name).
    expect(last).toMatchObject({ target_entity: SYNTH.dataset, target_name: 'Synthetic Samples' });
    expect(mine.every((j) => j.target_name === 'Synthetic Samples')).toBe(true);
    expect(last.additional_data).toEqual({ images: 4, failed: 0 });
  });
});

describeFixtures('import from the UI as a tracked job', () => {
  it('imports the CheMin export uploaded to /local/import and reports the summary', async () => {
    let jobId = -1;
    const { openAsBlob } = await import('node:fs');
    const events = await collectEvents(
      (jobs) => jobs.some((j) => j.id === jobId && j.state !== 'running'),
      async () => {
        const fd = new FormData();
        fd.append('file', await openAsBlob(fixture('chemin_template.json')), path.basename(fixture('chemin_template.json')));
        const r = await fetch(`${t.host.url}/local/import`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${t.admin.token}` },
          body: fd,
        });
        expect(r.status).toBe(202);
        jobId = ((await r.json()) as TrackedJob).id;
      },
    );
    const last = events.filter((j) => j.id === jobId).at(-1)!;
    expect(last.state).toBe('complete');
    expect(last.current).toBe(last.total);
    expect((last.additional_data as { kind: string }).kind).toBe('template');
    const recent = (await (await fetch(`${t.host.url}/local/jobs`, { headers: { Authorization: `Bearer ${t.admin.token}` } })).json()) as {
      jobs: TrackedJob[];
    };
    expect(recent.jobs.some((j) => j.id === jobId && j.job_type === 'import')).toBe(true);
  });
});

describe('a job names only datasets its reader may view (target_name)', () => {
  it('a user without view rights gets the uuid back on every job answer, the owner the name', async () => {
    const made = await t.admin.send('POST', '/dataset', { form: { template_uuid: SYNTH.dataset, dataset_name: 'Secret job target' } });
    expect(made.status).toBe(200);
    const secret = t.service.domain
      .schema()
      .topLevel()
      .find((dt) => dt.name === 'Secret job target')!.uuid;
    expect((await user.send('GET', `/dataset/${secret}`)).status).toBe(403);
    const seen: TrackedJob[] = [];
    const onJob = (e: { job: TrackedJob }) => void seen.push(e.job);
    t.service.ctx.events.on('job', onJob);
    try {
      const body = { job_type: 'leak', target_entity: secret, total: 2, additional_data: null };
      const mine = (await (await user.send('POST', '/job', { json: { job: body } })).json()) as TrackedJob;
      expect(mine.target_name).toBe(secret);
      const names = (jobs: TrackedJob[]) => jobs.filter((j) => j.id === mine.id).map((j) => j.target_name);
      expect(names((await user.runningJobs(['leak'])).jobs)).toEqual([secret]);
      expect((await user.jobStatus(mine.id, 1)).target_name).toBe(secret);
      const local = await fetch(`${t.host.url}/local/jobs`, { headers: { Authorization: `Bearer ${user.token}` } });
      expect(names(((await local.json()) as { jobs: TrackedJob[] }).jobs)).toEqual([secret]);
      expect((await user.completeJob(mine.id)).target_name).toBe(secret);
      const done = await user.send('GET', '/jobs/completed/leak/5');
      expect(names(((await done.json()) as { jobs: TrackedJob[] }).jobs)).toEqual([secret]);

      // PUT /job takes any job id: the caller's view names it, not the owner's.
      const theirs = await t.admin.createJob({ ...body, target_entity: 'x' }, apiToken);
      expect(theirs.target_name).toBe('x');
      const put = await user.send('PUT', '/job', {
        json: { ...upd({ ...body, additional_data: '{}', id: theirs.id, current: 1 }), user_email: USER.email },
      });
      expect(put.status, await put.clone().text()).toBe(200);
      expect(((await put.json()) as TrackedJob).target_name).toBe(secret);
      expect((await t.admin.jobStatus(theirs.id, 0, apiToken)).target_name).toBe('Secret job target');
      // Events go to the job's owner and carry the owner's view.
      expect(names(seen)).toContain(secret);
      expect(seen.filter((j) => j.id === theirs.id).at(-1)!.target_name).toBe('Secret job target');
    } finally {
      t.service.ctx.events.off('job', onJob);
    }
  });
});
