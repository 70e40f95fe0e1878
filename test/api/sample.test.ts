import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackedJob } from '../../shared/schemas/job.js';
import { SYNTH } from '../../bench/synthetic.js';
import { startService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => { t = await startService(); });
afterAll(() => t.close());

describe('first run: POST /local/sample', () => {
  it('generates the every-field-type sample as a tracked job', async () => {
    const post = (q: string) => fetch(`${t.host.url}/local/sample${q}`, { method: 'POST', headers: { Authorization: `Bearer ${t.admin.token}` } });
    expect((await post('?records=0')).status).toBe(400);
    expect((await post('?records=abc')).status).toBe(400);
    const res = await post('?records=120');
    expect(res.status).toBe(202);
    const job = (await res.json()) as TrackedJob;
    let state = job;
    for (let i = 0; i < 200 && state.state === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      const { jobs } = (await (await fetch(`${t.host.url}/local/jobs`, { headers: { Authorization: `Bearer ${t.admin.token}` } })).json()) as { jobs: TrackedJob[] };
      state = jobs.find((j) => j.id === job.id)!;
    }
    expect(state).toMatchObject({ state: 'complete', job_type: 'sample', additional_data: { dataset: SYNTH.dataset, records: 120 } });
    expect((await t.admin.list(SYNTH.dataset, 200)).records).toHaveLength(120);
  });
});
