import { expect } from 'vitest';
import type { Domain } from '../../electron/service/domain/domain.js';
import type { TrackedJob } from '../../shared/schemas/job.js';

/**
 * Starts a job of `type` with `post` (its 202 answer checked), runs `between` once, at the job's
 * first progress report while it still runs, and answers the ended job. Fails unless `between`
 * ran: a job that ends before reporting progress cannot show what a change mid-run does.
 */
export async function jobPausedOnce(d: Domain, type: string, post: () => Promise<Response>, between: () => void): Promise<TrackedJob> {
  const mine: { id?: number } = {};
  let ran = false;
  const ended = new Promise<TrackedJob>((resolve) => {
    const on = ({ job: j }: { job: TrackedJob }) => {
      if (j.job_type !== type || (mine.id !== undefined && j.id !== mine.id)) return;
      if (!ran && j.current > 0 && j.state === 'running') {
        ran = true;
        between();
      }
      if (j.state !== 'running') {
        d.ctx.events.off('job', on);
        resolve(j);
      }
    };
    d.ctx.events.on('job', on);
  });
  const res = await post();
  expect(res.status, await res.clone().text()).toBe(202);
  mine.id = ((await res.json()) as TrackedJob).id;
  const end = await ended;
  expect(ran).toBe(true);
  return end;
}

/**
 * Polls GET /local/jobs until job `id` has ended and answers it. Bounded by time, not by a count
 * of polls: on a loaded machine each poll's answer comes late, so a count of short sleeps could
 * end before a job that is merely slow, and a loop that then went on without checking would test
 * a job still running.
 */
export async function jobEnded(url: string, token: string, id: number, ms = 45_000): Promise<TrackedJob> {
  const end = performance.now() + ms;
  for (;;) {
    const res = await fetch(`${url}/local/jobs`, { headers: { Authorization: `Bearer ${token}` } });
    const job = ((await res.json()) as { jobs: TrackedJob[] }).jobs.find((j) => j.id === id);
    if (!job) throw new Error(`job ${id} is not in GET /local/jobs`);
    if (job.state !== 'running') return job;
    if (performance.now() > end) throw new Error(`job ${id} (${job.job_type}) still running after ${ms} ms: ${job.current}/${job.total}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
