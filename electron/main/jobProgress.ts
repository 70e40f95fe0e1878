import type { TrackedJob } from '../../shared/schemas/job.js';

/**
 * The dock/taskbar progress bar while jobs run: the mean fraction of the running jobs, or
 * none (-1) when nothing runs.
 */
export function trackJobProgress(
  onJob: (l: (e: { job: TrackedJob }) => void) => () => void,
  setProgress: (fraction: number) => void,
): () => void {
  const running = new Map<number, number>();
  let last = Number.NaN;
  const off = onJob(({ job }) => {
    if (job.state === 'running') running.set(job.id, job.total > 0 ? Math.min(1, job.current / job.total) : 0);
    else running.delete(job.id);
    const value = running.size ? [...running.values()].reduce((a, b) => a + b, 0) / running.size : -1;
    if (value !== last) {
      last = value;
      setProgress(value);
    }
  });
  return off;
}
