import { describe, expect, it } from 'vitest';
import { mergeJobs } from '../../renderer/src/lib/jobsMerge.js';
import type { TrackedJob } from '../../shared/schemas/job.js';

const at = { date: '2026-11-23 10:00:00.000000', timezone_type: 3, timezone: 'UTC' };
const job = (id: number, state: TrackedJob['state'], current: number, data: unknown = null): TrackedJob => ({
  id,
  job_type: 'import_csv',
  total: 1000,
  current,
  completed: state === 'complete' ? at : null,
  started: at,
  viewed: null,
  additional_data: data,
  target_entity: 'CSV Samples',
  target_name: 'CSV Samples',
  state,
  error: null,
});

describe('jobs cache: a job never goes back', () => {
  it('a list fetched before the job finished does not undo the finish the event stream brought', () => {
    const done = job(7, 'complete', 1000, { imported: 2000 });
    const merged = mergeJobs([done, job(6, 'complete', 1000)], [job(7, 'running', 990), job(6, 'complete', 1000)]);
    expect(merged[0]).toBe(done);
    expect(merged.map((j) => j.id)).toEqual([7, 6]);
  });

  it('more progress beats less; newer answers otherwise win', () => {
    expect(mergeJobs([job(3, 'running', 500)], [job(3, 'running', 200)])[0]!.current).toBe(500);
    expect(mergeJobs([job(3, 'running', 200)], [job(3, 'running', 500)])[0]!.current).toBe(500);
    expect(mergeJobs([job(3, 'running', 500)], [job(3, 'failed', 500)])[0]!.state).toBe('failed');
  });

  it('a job the list lacks is gone (cancelled); unchanged jobs keep their identity', () => {
    const kept = job(2, 'complete', 1000);
    const merged = mergeJobs([job(4, 'running', 10), kept], [job(2, 'complete', 1000)]);
    expect(merged).toEqual([kept]);
    expect(merged[0]).toBe(kept);
  });
});
