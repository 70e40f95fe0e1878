import type { JobKind, TrackedJob } from '../../../shared/schemas/job.js';
import type { Domain } from './domain.js';
import { OdrError } from './errors.js';
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

/** False once the service is closing: startJob refuses from then on. */
export const acceptsJobs = (d: Domain): boolean => !runningFor(d).stopping;

/** Throws what startJob would throw while the service is closing (for callers that write first). */
export function assertAcceptsJobs(d: Domain, type: string): void {
  // A job started now would outlive the database: close() no longer waits for new ones.
  if (!acceptsJobs(d)) throw new OdrError(503, `The service is closing: the ${type} job was not started`);
}

/** `start()`, a startJob call; when it refuses, `cleanUp` first drops what only the job would have used (a staged upload). */
export async function startOrCleanUp<T>(cleanUp: () => unknown, start: () => T): Promise<T> {
  try {
    return start();
  } catch (e) {
    await cleanUp();
    throw e;
  }
}

/**
 * Runs one of the service's own long operations as a tracked job: it shows up in /jobs and the
 * event stream like any ODR job, ends complete (with its result in additional_data) or failed
 * (with the error), and stops early when the user cancels it or the service closes.
 */
export function startJob(
  d: Domain,
  user: User,
  kind: { type: JobKind; target: string; total: number; data?: unknown },
  work: (r: JobReporter) => Promise<unknown>,
): TrackedJob {
  assertAcceptsJobs(d, kind.type);
  const all = runningFor(d);
  const job = d.jobs.create(user, {
    job_type: kind.type,
    target_entity: kind.target,
    total: kind.total,
    additional_data: kind.data ?? null,
  });
  let last = 0;
  let total = kind.total;
  let cancelled = false;
  /** Set only when the reporter answered "stop" because of the close: the work then ended early. */
  let stoppedByClose = false;
  const reporter: JobReporter = {
    progress: (current, newTotal) => {
      if (newTotal !== undefined) total = newTotal;
      // Progress that reaches the total reports the work done: there is nothing left to stop.
      if (all.stopping && current < total) {
        stoppedByClose = true;
        return false;
      }
      const now = Date.now();
      if (now - last < REPORT_EVERY_MS && newTotal === undefined && current < total) return !cancelled;
      last = now;
      if (!d.jobs.progress(job.id, current, newTotal)) cancelled = true;
      return !cancelled;
    },
    cancelled: () => {
      if (all.stopping) stoppedByClose = true;
      return stoppedByClose || (cancelled ||= d.jobs.isCancelled(job.id));
    },
  };
  const run = (async () => {
    try {
      const result = await work(reporter);
      if (stoppedByClose) d.jobs.fail(job.id, STOPPED_BY_CLOSE);
      else if (!(cancelled ||= d.jobs.isCancelled(job.id))) d.jobs.finish(job.id, result === undefined ? undefined : result);
    } catch (e) {
      // After a close that gave up waiting the database is gone: nothing left to record.
      if (d.ctx.db.open) d.jobs.fail(job.id, stoppedByClose ? STOPPED_BY_CLOSE : ((e as Error).message ?? String(e)));
    }
  })();
  all.jobs.add(run);
  void run.finally(() => all.jobs.delete(run));
  return job;
}

/**
 * Closing the service: every running job is told to stop (as a cancel does) and awaited, at
 * most `waitMs`; a job that stopped early ends failed with STOPPED_BY_CLOSE, one whose work
 * completed anyway ends complete. No job starts after this (startJob answers 503). True when
 * all of them ended in time.
 */
export async function stopJobs(d: Domain, waitMs: number): Promise<boolean> {
  const all = runningFor(d);
  all.stopping = true;
  if (!all.jobs.size) return true;
  return settlesWithin(Promise.all(all.jobs), waitMs);
}

/** True when `work` settles within `ms`; false (and `work` left running) otherwise. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      work.then(
        () => true as const,
        () => true as const,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
