import type { TrackedJob } from '../../../shared/schemas/job.js';
import type { Domain } from './domain.js';
import type { User } from './users.js';

export interface JobReporter {
  /** Work units done so far (and a new total when it became known); false once cancelled. */
  progress: (current: number, total?: number) => boolean;
  cancelled: () => boolean;
}

const REPORT_EVERY_MS = 100;

/**
 * Runs one of the service's own long operations as a tracked job: it shows up in /jobs and the
 * event stream like any ODR job, ends complete (with its result in additional_data) or failed
 * (with the error), and stops early when the user cancels it.
 */
export function startJob(
  d: Domain,
  user: User,
  kind: { type: string; target: string; total: number; data?: unknown },
  work: (r: JobReporter) => Promise<unknown>,
): TrackedJob {
  const job = d.jobs.create(user, {
    job_type: kind.type,
    target_entity: kind.target,
    total: kind.total,
    additional_data: kind.data ?? null,
  });
  let last = 0;
  let cancelled = false;
  const reporter: JobReporter = {
    progress: (current, total) => {
      const now = Date.now();
      if (now - last < REPORT_EVERY_MS && total === undefined) return !cancelled;
      last = now;
      if (!d.jobs.progress(job.id, current, total)) cancelled = true;
      return !cancelled;
    },
    cancelled: () => (cancelled ||= d.jobs.isCancelled(job.id)),
  };
  void (async () => {
    try {
      const result = await work(reporter);
      if (!reporter.cancelled()) d.jobs.finish(job.id, result === undefined ? undefined : result);
    } catch (e) {
      d.jobs.fail(job.id, (e as Error).message ?? String(e));
    }
  })();
  return job;
}
