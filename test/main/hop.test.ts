import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import type { TrackedJob } from '../../shared/schemas/job.js';
import { startShell, type Shell } from '../../electron/main/shell.js';
import { forkServiceChild } from '../../electron/main/nodeChild.js';
import { createService, type Service } from '../../electron/service/service.js';
import { SYNTH } from '../../bench/synthetic.js';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/service.js';
import { FakeWindow, fakeElectron } from './fakeElectron.js';

// The service runs off the main process. Measured with the shell's own code under Node (the
// service process started by child_process.fork where Electron would use utilityProcess):
//  - the main process's event-loop delay and CPU while the service imports N records, next to
//    the same import with the service inside the process, as the shell used to run it (the
//    limits are fractions of that in-process run, so a loaded machine moves both alike);
//  - a record read over the app scheme (main → service process → main), p50, next to the same
//    read answered in-process.
// ODR_HOP_RECORDS=100000 gives the figure; `npm test` runs a smaller import.
const N = Number(process.env.ODR_HOP_RECORDS ?? 8000);
const READS = 300;
const ms = (ns: number) => Math.round(ns / 1e4) / 100;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Fetch = (req: Request) => Promise<Response>;

async function session(fetch: Fetch) {
  return ((await (await fetch(new Request('odr://app/local/session', { method: 'POST' }))).json()) as { token: string }).token;
}

/** This process's event-loop delay over `seconds` with nothing to do: the machine's own noise. */
async function idleDelay(seconds: number) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  h.disable();
  return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) };
}

/** Starts the sample import of N records and measures this process's event loop until it ends. */
async function importWhileMeasuring(fetch: Fetch, onJob: (l: (job: TrackedJob) => void) => () => void) {
  const token = await session(fetch);
  const h = monitorEventLoopDelay({ resolution: 1 });
  let done!: (j: TrackedJob) => void;
  let events = 0;
  const finished = new Promise<TrackedJob>((r) => {
    done = r;
  });
  const off = onJob((job) => {
    events++;
    if (job.job_type === 'sample' && job.state !== 'running') done(job);
  });
  h.enable();
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const res = await fetch(
    new Request(`odr://app/local/sample?records=${N}`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } }),
  );
  expect(res.status).toBe(202);
  const job = await finished;
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const elu = performance.eventLoopUtilization(elu0).utilization;
  h.disable();
  off();
  expect(job.state).toBe('complete');
  return {
    token,
    seconds,
    events,
    elu: Math.round(elu * 1000) / 10,
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    p50: ms(h.percentile(50)),
    p99: ms(h.percentile(99)),
    max: ms(h.max),
  };
}

async function readP50(fetch: Fetch, token: string) {
  // A search first: it brings the background full-text index up to date, so the reads below
  // measure the hop, not the service still indexing the import.
  const warm = await fetch(
    new Request(`odr://app/local/datasets/${SYNTH.dataset}/records?q=warm&limit=1`, { headers: { Authorization: `Bearer ${token}` } }),
  );
  expect(warm.status).toBe(200);
  await warm.arrayBuffer();
  const times: number[] = [];
  for (let i = 0; i < READS; i++) {
    const t0 = performance.now();
    const res = await fetch(
      new Request(`odr://app/api/v4/dataset/record/${SYNTH.record(i % N)}`, { headers: { Authorization: `Bearer ${token}` } }),
    );
    await res.arrayBuffer();
    times.push(performance.now() - t0);
    expect(res.status).toBe(200);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(READS / 2)]! * 100) / 100;
}

describe(`the service process (${N} records imported)`, () => {
  let inProcess: Awaited<ReturnType<typeof importWhileMeasuring>> & { readP50: number };
  let hosted: Awaited<ReturnType<typeof importWhileMeasuring>> & { readP50: number };

  it(
    'in the main process (the old way) the import stalls the event loop',
    async () => {
      const dataDir = tempDir('odr-hop-in-');
      dirs.push(dataDir);
      const service: Service = await createService({ dataDir });
      try {
        const r = await importWhileMeasuring(service.fetch, (l) => {
          const h = ({ job }: { job: TrackedJob }) => l(job);
          service.ctx.events.on('job', h);
          return () => service.ctx.events.off('job', h);
        });
        inProcess = { ...r, readP50: await readP50(service.fetch, r.token) };
        console.log(
          `in-process: import ${N} in ${r.seconds.toFixed(1)} s; main event-loop delay p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms; CPU ${r.cpuMs} ms; record read p50 ${inProcess.readP50} ms`,
        );
        // The measurement sees blocking when there is some: otherwise the next test proves nothing.
        expect(r.max).toBeGreaterThan(20);
      } finally {
        await service.close();
      }
    },
    120_000 + N * 10,
  );

  it(
    'in its own process the main event loop stays free during the import; the hop is measured',
    async () => {
      const userData = tempDir('odr-hop-shell-');
      dirs.push(userData);
      const fake = fakeElectron(userData);
      const shell = (await startShell(fake.api, {
        rendererDist: path.join(ROOT, 'dist', 'renderer'),
        preload: '/p.cjs',
        startService: forkServiceChild,
      })) as Shell;
      try {
        const fetch = fake.handlers.get('odr')! as Fetch;
        const idle = await idleDelay(3);
        const r = await importWhileMeasuring(fetch, shell.service.onJob);
        hosted = { ...r, readP50: await readP50(fetch, r.token) };
        console.log(
          `idle main (machine noise): event-loop delay p50 ${idle.p50} ms, p99 ${idle.p99} ms, max ${idle.max} ms; load ${os.loadavg()[0]!.toFixed(1)}`,
        );
        console.log(
          `service process: import ${N} in ${r.seconds.toFixed(1)} s; main event-loop delay p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms; ` +
            `main busy ${r.elu} % (CPU ${r.cpuMs} ms), ${r.events} job events; ` +
            `record read over the app scheme p50 ${hosted.readP50} ms (in-process ${inProcess?.readP50 ?? '?'} ms)`,
        );
        // Against the in-process run above, not a fixed number of ms: what main sees during the
        // import is mostly the scheduler's noise (a quiet CI machine: p99 2.5-3 ms against 228-254
        // ms in-process; 12 other processes on 2 cores: p99 30 ms against 432 ms, where a fixed
        // 20 ms over the idle p99 failed). A fifth keeps a wide margin both ways. The CPU that
        // main spends during the import does not depend on the scheduler at all (20-46 ms).
        expect(inProcess, 'the in-process test runs first and gives the baseline').toBeDefined();
        expect(r.p99).toBeLessThan(inProcess.p99 / 5);
        expect(r.cpuMs).toBeLessThan(inProcess.cpuMs / 5);
        expect(hosted.readP50).toBeLessThan(20);
      } finally {
        await shell.quit();
        FakeWindow.all = [];
      }
    },
    120_000 + N * 10,
  );
});
