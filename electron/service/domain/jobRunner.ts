import type { TrackedJob } from '../../../shared/schemas/job.js';
import type { Domain } from './domain.js';
import type { User } from './users.js';

export interface JobReporter {
  /** Work units done so far (and a new total when it became known); false once cancelled. */
  progress: (current: number, total?: number) => boolean;
  cancelled: () => boolean;
}

const REPORT_EVERY_MS = 100;

/** What a job stopped by the service closing says, in its error. */
export const STOPPED_BY_CLOSE = 'stopped: the service closed while this job ran';

/** The jobs still running per service, so closing can stop them before the database goes. */
interface Running {
  stopping: boolean;
  jobs: Set<Promise<void>>;
}
const runningOf = new WeakMap<Domain, Running>();
const runningFor = (d: Domain): Running => {
  let r = runningOf.get(d);
  if (!r) runningOf.set(d, (r = { stopping: false, jobs: new Set() }));
  return r;
};

/**
 * Runs one of the service's own long operations as a tracked job: it shows up in /jobs and the
 * event stream like any ODR job, ends complete (with its result in additional_data) or failed
 * (with the error), and stops early when the user cancels it or the service closes.
 */
export function startJob(
  d: Domain,
  user: User,
  kind: { type: string; target: string; total: number; data?: unknown },
  work: (r: JobReporter) => Promise<unknown>,
): TrackedJob {
  const all = runningFor(d);
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
      if (all.stopping) return false;
      const now = Date.now();
      if (now - last < REPORT_EVERY_MS && total === undefined) return !cancelled;
      last = now;
      if (!d.jobs.progress(job.id, current, total)) cancelled = true;
      return !cancelled;
    },
    cancelled: () => all.stopping || (cancelled ||= d.jobs.isCancelled(job.id)),
  };
  const run = (async () => {
    try {
      const result = await work(reporter);
      if (!reporter.cancelled()) d.jobs.finish(job.id, result === undefined ? undefined : result);
      else if (all.stopping && !cancelled) d.jobs.fail(job.id, STOPPED_BY_CLOSE);
    } catch (e) {
      // After a close that gave up waiting the database is gone: nothing left to record.
      if (d.ctx.db.open) d.jobs.fail(job.id, all.stopping ? STOPPED_BY_CLOSE : ((e as Error).message ?? String(e)));
    }
  })();
  all.jobs.add(run);
  void run.finally(() => all.jobs.delete(run));
  return job;
}

/**
 * Closing the service: every running job is told to stop (as a cancel does) and awaited, at
 * most `waitMs`; each ends failed with STOPPED_BY_CLOSE. True when all of them ended in time.
 */
export async function stopJobs(d: Domain, waitMs: number): Promise<boolean> {
  const all = runningFor(d);
  all.stopping = true;
  if (!all.jobs.size) return true;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs)));
  try {
    return await Promise.race([Promise.all(all.jobs).then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
