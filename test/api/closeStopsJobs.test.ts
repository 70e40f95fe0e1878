import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrackedJob } from '../../shared/schemas/job.js';
import { STOPPED_BY_CLOSE } from '../../electron/service/domain/jobRunner.js';
import { startService, type TestService } from '../support/service.js';

// Service.close() stops the service's own running jobs (as a cancel does) and waits for them,
// bounded, before the database closes: a job left running would fail on a closed connection
// after its caller thought the service was gone, and would stay "running" in the database.

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  if (t) rmSync(t.dataDir, { recursive: true, force: true });
  t = undefined;
});

const jobsOf = async (s: TestService) =>
  (
    (await (await fetch(`${s.host.url}/local/jobs?limit=500`, { headers: { Authorization: `Bearer ${s.admin.token}` } })).json()) as {
      jobs: TrackedJob[];
    }
  ).jobs;

describe('Service.close() and running jobs', () => {
  it('stops a running sample job, waits for it, and records it as stopped', async () => {
    const s = await startService({ keepDir: true });
    const auth = { Authorization: `Bearer ${s.admin.token}` };
    const job = (await (await fetch(`${s.host.url}/local/sample?records=2000000`, { method: 'POST', headers: auth })).json()) as TrackedJob;
    // Wait until it writes records (the state the close must interrupt), bounded.
    for (let i = 0; i < 400; i++) {
      if ((await jobsOf(s)).find((j) => j.id === job.id)!.current > 10) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect((await jobsOf(s)).find((j) => j.id === job.id)!.state).toBe('running');
    const started = performance.now();
    await s.close(); // keepDir: reopened below
    // One batch of 1,000 records ends well within the bound (a 2M-record run would take minutes).
    expect(performance.now() - started).toBeLessThan(8_000);

    t = await startService({ dataDir: s.dataDir, keepDir: true });
    const after = (await jobsOf(t)).find((j) => j.id === job.id)!;
    expect(after).toMatchObject({ state: 'failed', error: STOPPED_BY_CLOSE });
    // What the finished batches wrote is kept and readable.
    const stored = t.service.ctx.db.prepare('SELECT COUNT(*) FROM records').pluck().get() as number;
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(2_000_000);
  }, 30_000);

  it('closes at once when no job runs', async () => {
    const s = await startService();
    const started = performance.now();
    await s.close();
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
