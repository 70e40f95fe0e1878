import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackedJob } from '../../shared/schemas/job.js';
import { SYNTH } from '../../bench/synthetic.js';
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
    let state = job;
    for (let i = 0; i < 200 && state.state === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      const { jobs } = (await (
        await fetch(`${t.host.url}/local/jobs`, { headers: { Authorization: `Bearer ${t.admin.token}` } })
      ).json()) as { jobs: TrackedJob[] };
      state = jobs.find((j) => j.id === job.id)!;
    }
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
    for (let i = 0; i < 400 && progress < 12; i++) {
      await new Promise((r) => setTimeout(r, 25));
      if (existsSync(tmp)) seenFiles = Math.max(seenFiles, readdirSync(tmp).length);
      const { jobs } = (await (await fetch(`${t.host.url}/local/jobs`, { headers: auth })).json()) as { jobs: TrackedJob[] };
      progress = jobs.find((j) => j.id === job.id)!.current;
    }
    expect(progress).toBeGreaterThanOrEqual(11); // records are being written
    expect(seenFiles).toBe(0);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 2 ** 20);
    await fetch(`${t.api}/job/cancel/${job.id}`, { headers: auth });
    for (let i = 0; i < 200; i++) {
      const { jobs } = (await (await fetch(`${t.host.url}/local/jobs`, { headers: auth })).json()) as { jobs: TrackedJob[] };
      if (jobs.find((j) => j.id === job.id)?.state !== 'running') break;
      await new Promise((r) => setTimeout(r, 25));
    }
  }, 30_000);
});
