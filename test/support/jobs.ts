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
