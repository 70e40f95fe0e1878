import { replaceEqualDeep } from '@tanstack/react-query';
import type { TrackedJob } from '../../../shared/schemas/job.js';

/**
 * The jobs cache is written from two sides: GET /local/jobs answers and the event stream. A list
 * fetched before a job finished can arrive after the event that finished it; taken as is, it
 * would put the job back to "running" for good (no later event comes). So a job never goes back:
 * a final state beats "running", and more progress beats less. A job the new list lacks is gone
 * (a cancelled one leaves the list); one created meanwhile comes back with its next event.
 */
export function mergeJobs(old: TrackedJob[] | undefined, fresh: TrackedJob[]): TrackedJob[] {
  if (!old?.length) return fresh;
  const before = new Map(old.map((j) => [j.id, j]));
  const merged = fresh.map((j) => {
    const o = before.get(j.id);
    if (!o) return j;
    if (j.state === 'running' && (o.state !== 'running' || o.current > j.current)) return o;
    return replaceEqualDeep(o, j);
  });
  return merged.length === old.length && merged.every((j, i) => j === old[i]) ? old : merged;
}
