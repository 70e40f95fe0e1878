import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackedJob } from '../../shared/schemas/job.js';
import { SYNTH } from '../../bench/synthetic.js';
import { jobEnded } from '../support/jobs.js';
import { startService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startService();
});
afterAll(() => t.close());

describe('first run: POST /local/sample', () => {
  it('generates the every-field-type sample as a tracked job', async () => {
    const post = (q: string) =>
      fetch(`${t.host.url}/local/sample${q}`, { method: 'POST', headers: { Authorization: `Bearer ${t.admin.token}` } });
    expect((await post('?records=0')).status).toBe(400);
    expect((await post('?records=abc')).status).toBe(400);
    const res = await post('?records=120');
    expect(res.status).toBe(202);
    const job = (await res.json()) as TrackedJob;
    const state = await jobEnded(t.host.url, t.admin.token!, job.id);
    expect(state).toMatchObject({ state: 'complete', job_type: 'sample', additional_data: { dataset: SYNTH.dataset, records: 120 } });
    expect((await t.admin.list(SYNTH.dataset, 200)).records).toHaveLength(120);
  });

  it('takes up to 2,000,000 records and streams them: no export file, memory flat', async () => {
    const auth = { Authorization: `Bearer ${t.admin.token}` };
    const post = (q: string) => fetch(`${t.host.url}/local/sample${q}`, { method: 'POST', headers: auth });
    const over = await post('?records=2000001');
    expect(over.status).toBe(400);
    expect(((await over.json()) as { error: { message: string } }).error.message).toMatch(/1 to 2000000/);
    const rssBefore = process.memoryUsage().rss;
    const job = (await (await post('?records=2000000')).json()) as TrackedJob;
    expect(job.state).toBe('running');
    // Let it run a few batches, then look for a temp export and at memory, and cancel it.
    const tmp = path.join(t.dataDir, 'files', 'tmp');
    let seenFiles = 0;
    let progress = 0;
    // Until a few thousand records are in (progress 12 of 1000 is 2M × 2/990): bounded by time,
    // since how many polls that takes depends on the machine's speed and load.
    for (const end = performance.now() + 20_000; progress < 12 && performance.now() < end;) {
      await new Promise((r) => setTimeout(r, 25));
      if (existsSync(tmp)) seenFiles = Math.max(seenFiles, readdirSync(tmp).length);
      const { jobs } = (await (await fetch(`${t.host.url}/local/jobs`, { headers: auth })).json()) as { jobs: TrackedJob[] };
      progress = jobs.find((j) => j.id === job.id)!.current;
    }
    expect(progress).toBeGreaterThanOrEqual(12); // records are being written
    expect(seenFiles).toBe(0);
    const grown = process.memoryUsage().rss - rssBefore;
    console.log(`sample: progress ${progress}, rss grew ${(grown / 2 ** 20).toFixed(1)} MB`);
    expect(grown).toBeLessThan(200 * 2 ** 20);
    // Cancelled is soft-deleted: the job leaves GET /local/jobs at once; the service's close in
    // afterAll waits for its runner to stop.
    expect((await fetch(`${t.api}/job/cancel/${job.id}`, { headers: auth })).status).toBe(200);
  }, 30_000);
});
