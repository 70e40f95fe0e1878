import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrackedJob } from '../../shared/schemas/job.js';
import type { Domain } from '../../electron/service/domain/domain.js';
import { startJob, stopJobs, STOPPED_BY_CLOSE, type JobReporter } from '../../electron/service/domain/jobRunner.js';
import { SYNTH } from '../../bench/synthetic.js';
import { syntheticRecord } from '../../electron/service/domain/sample/synthetic.js';
import { startService, startSyntheticService, type TestService } from '../support/service.js';

// Service.close() stops the service's own running jobs (as a cancel does) and waits for them,
// bounded, before the database closes: a job left running would fail on a closed connection
// after its caller thought the service was gone, and would stay "running" in the database.
// Only a job that was told to stop and stopped is recorded as stopped: work that completes
// while the close waits keeps its result. No job starts once closing began.

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  if (t) rmSync(t.dataDir, { recursive: true, force: true });
  t = undefined;
});

const jobsOf = async (s: TestService) =>
  (
    (await (await fetch(`${s.host.url}/local/jobs?limit=500`, { headers: { Authorization: `Bearer ${s.admin.token}` } })).json()) as {
      jobs: TrackedJob[];
    }
  ).jobs;

/** Resolves with the job's first state `ok` accepts, from the service's job events; rejects after `ms`. */
function jobState(s: TestService, id: number, ok: (j: TrackedJob) => boolean, ms = 20_000): Promise<TrackedJob> {
  const events = s.service.ctx.events;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      events.off('job', on);
      reject(new Error(`job ${id} did not reach the awaited state in ${ms} ms`));
    }, ms);
    const on = (e: { id: number; job: TrackedJob }) => {
      if (e.id !== id || !ok(e.job)) return;
      clearTimeout(timer);
      events.off('job', on);
      resolve(e.job);
    };
    events.on('job', on);
  });
}

/** A job whose work waits until the test opens the gate, then runs `then` with its reporter. */
function gatedJob(d: Domain, then: (r: JobReporter) => unknown) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const user = d.users.firstSuperUser()!;
  const job = startJob(d, user, { type: 'sample', target: 'gate', total: 100 }, async (r) => {
    await gate;
    return then(r);
  });
  return { job, open, state: () => d.jobs.get(user, job.id) };
}

describe('Service.close() and running jobs', () => {
  it('stops a running sample job, waits for it, and records it as stopped', async () => {
    const s = await startService({ keepDir: true });
    const auth = { Authorization: `Bearer ${s.admin.token}` };
    const res = await fetch(`${s.host.url}/local/sample?records=2000000`, { method: 'POST', headers: auth });
    const job = (await res.json()) as TrackedJob;
    // The state the close must interrupt: records being written.
    await jobState(s, job.id, (j) => j.current > 10);
    expect((await jobsOf(s)).find((j) => j.id === job.id)!.state).toBe('running');
    // One batch of 1,000 records ends well within close's bound (a 2M-record run takes minutes).
    expect(await s.close()).toEqual({ jobsEnded: true }); // keepDir: reopened below

    t = await startService({ dataDir: s.dataDir, keepDir: true });
    const after = (await jobsOf(t)).find((j) => j.id === job.id)!;
    expect(after).toMatchObject({ state: 'failed', error: STOPPED_BY_CLOSE });
    // What the finished batches wrote is kept and readable.
    const stored = t.service.ctx.db.prepare('SELECT COUNT(*) FROM records').pluck().get() as number;
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(2_000_000);
  }, 30_000);

  it('a job whose work completes while the close waits ends complete with its result', async () => {
    t = await startService();
    const d = t.service.domain;
    const quiet = gatedJob(d, () => ({ made: 3 })); // never asks whether to stop
    const last = gatedJob(d, (r) => {
      if (!r.progress(100)) throw new Error('told to stop after its last unit');
      return { made: 100 };
    });
    const stopping = stopJobs(d, 10_000);
    quiet.open();
    last.open();
    expect(await stopping).toBe(true);
    expect(quiet.state()).toMatchObject({ state: 'complete', additional_data: { made: 3 } });
    expect(last.state()).toMatchObject({ state: 'complete', additional_data: { made: 100 } });
  });

  it('a job told to stop by the close, and that stopped, ends failed as stopped', async () => {
    t = await startService();
    const d = t.service.domain;
    const asks = gatedJob(d, (r) => (r.cancelled() ? 'partial' : 'all'));
    const reports = gatedJob(d, (r) => {
      if (!r.progress(50)) throw new Error('cancelled');
      return 'all';
    });
    const stopping = stopJobs(d, 10_000);
    asks.open();
    reports.open();
    expect(await stopping).toBe(true);
    expect(asks.state()).toMatchObject({ state: 'failed', error: STOPPED_BY_CLOSE });
    expect(reports.state()).toMatchObject({ state: 'failed', error: STOPPED_BY_CLOSE });
  });

  it('no job starts once closing began: the API answers 503 with a clear error, changes nothing, keeps no upload', async () => {
    t = await startSyntheticService(3);
    const d = t.service.domain;
    const before = (await jobsOf(t)).length;
    expect(await stopJobs(d, 1_000)).toBe(true);
    expect(() => gatedJob(d, () => 'never')).toThrow(/closing/);
    const digest = t.digest();
    const upload = (file: string, fields: Record<string, string> = {}) => {
      const fd = new FormData();
      for (const [k, v] of Object.entries(fields)) fd.set(k, v);
      fd.set('file', new Blob([file]), 'upload');
      return fd;
    };
    const starts: [string, RequestInit][] = [
      ['/local/sample?records=10', {}],
      ['/local/import', { body: upload(JSON.stringify({ count: 1, records: [syntheticRecord(7)] })) }],
      ['/local/import', { body: upload('Long Text field\nhello\n', { format: 'csv', dataset: SYNTH.dataset }) }],
    ];
    for (const [route, init] of starts) {
      const res = await fetch(`${t.host.url}${route}`, { method: 'POST', headers: { Authorization: `Bearer ${t.admin.token}` }, ...init });
      expect(res.status, `${route}: ${await res.clone().text()}`).toBe(503);
      expect(await res.json()).toEqual({ error: { code: 503, message: expect.stringMatching(/service is closing/) } });
    }
    expect((await jobsOf(t)).length).toBe(before);
    expect(t.digest()).toBe(digest);
    expect(readdirSync(path.join(t.dataDir, 'files', 'tmp'))).toEqual([]);
  });

  it('answers jobsEnded true when no job runs', async () => {
    const s = await startService();
    expect(await s.close()).toEqual({ jobsEnded: true });
  });
});
