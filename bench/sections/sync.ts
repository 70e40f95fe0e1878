import os from 'node:os';
import { createService, type Service } from '../../electron/service/service.js';
import { setValue } from '../../electron/service/domain/records/ops.js';
import { SYNTH } from '../synthetic.js';
import { PUSH_CONCURRENCY } from '../../electron/service/sync/push.js';
import { PUSH_DELAY_MS } from '../../electron/service/sync/live.js';
import type { User } from '../../electron/service/domain/users.js';
import { GUARDED_WRITES_HEADER, OdrClient } from '../../shared/client/odrClient.js';
import { BENCH_ADMIN, barePages, startRemote } from '../remote.js';
import { fmt, forkTs, freshDir, load1, percentile, type BenchContext, type Child } from '../util.js';

const PULL_RECORDS = Number(process.env.BENCH_SYNC_RECORDS ?? 10_000);
const PUSH_EDITS = 1_000;
/** The lab-server rows: a smaller dataset and fewer edits, each operation waits two round trips. */
const LAB_RECORDS = 1_000;
const LAB_EDITS = 200;
const LAB_DELAY_MS = 20;

/**
 * Issue 12: a first pull of 10k records from a remote service in its own process on loopback
 * beside a bare client GETting the same pages; a push of 1,000 queued value edits (each on its
 * own record, each checked against the base before it is written: on loopback by the remote's
 * guard, the remote being an odr-desktop service; through the proxy adding a lab server's round
 * trip by a fresh read first, the proxy playing a real ODR server) one record at a time and
 * several at once; live mode's lag from a local write to visible on the remote.
 */
export async function syncBench(ctx: BenchContext): Promise<void> {
  const remote = await startRemote(ctx, 'data-sync-remote', PULL_RECORDS);
  const local = await createService({ dataDir: freshDir(ctx, 'data-sync-local'), admin: BENCH_ADMIN, liveSync: false });
  try {
    const me = local.domain.users.firstSuperUser()!;
    const id = await local.sync.addRemote(remote.api, BENCH_ADMIN.email, BENCH_ADMIN.password);

    // The limit for the first pull: a bare client that only GETs the same record pages, one
    // after the other, in this run.
    const bare = await barePages(await remote.client());
    const bareRate = bare.records / (bare.ms / 1000);

    let t0 = performance.now();
    const pull = await local.sync.run(id, me, [SYNTH.dataset]);
    const pullMs = performance.now() - t0;
    if (pull.error) throw new Error(`pull failed: ${pull.error}`);
    const got = local.ctx.db.prepare('SELECT COUNT(*) FROM records WHERE parent_rid IS NULL').pluck().get() as number;
    if (got !== PULL_RECORDS) throw new Error(`pulled ${got} of ${PULL_RECORDS} records`);
    const rate = PULL_RECORDS / (pullMs / 1000);
    ctx.add({
      section: 'sync',
      name: `first pull of ${PULL_RECORDS} records, bare page GETs (the limit)`,
      value: Math.round(bareRate),
      unit: 'rec/s',
      note: `${bare.records} records in pages of 100, GET and JSON parse only`,
    });
    ctx.add({
      section: 'sync',
      name: `first pull of ${PULL_RECORDS} records from a loopback remote`,
      value: Math.round(rate),
      unit: 'rec/s',
      target: '≥ 50 % of bare GETs',
      pass: rate >= 0.5 * bareRate,
      note: `${fmt((100 * rate) / bareRate, 0)} % of the bare client; ${fmt(pullMs / 1000, 1)} s incl. ${remote.children} child records, template, id listing; load ${load1()}`,
    });

    // Push: the same number of queued edits, first one record at a time, then with several
    // top-level records in flight, in this run (the machine drifts between runs). CPU time of
    // both processes is counted: on a machine with few free cores it bounds what concurrency
    // can win (the wall time of a one-at-a-time push is CPU plus waiting; only waiting overlaps).
    const field = SYNTH.field('Medium Text');
    const serial = await timePush(local, me, id, remote.child, 1, 0, PUSH_EDITS, field);
    const parallel = await timePush(local, me, id, remote.child, PUSH_CONCURRENCY, PUSH_EDITS, PUSH_EDITS, field);
    const cores = os.cpus().length;
    // With every core free to us, N records in flight can at best turn waiting into work: the
    // rate is then bounded by the CPU both processes spend per operation.
    const cpuBound = (cores * 1000) / serial.cpuMsPerOp;
    ctx.add({
      section: 'sync',
      name: `push of ${PUSH_EDITS} queued edits, one record at a time`,
      value: Math.round(serial.rate),
      unit: 'ops/s',
      note: `guarded write (the remote is odr-desktop: no read first), commit per record; ${fmt(serial.cpuMsPerOp, 2)} ms CPU per op (both processes) of ${fmt(serial.ms / PUSH_EDITS, 2)} ms wall`,
    });
    ctx.add({
      section: 'sync',
      name: `push of ${PUSH_EDITS} queued edits, ${PUSH_CONCURRENCY} records in flight`,
      value: Math.round(parallel.rate),
      unit: 'ops/s',
      target: '≥ 4× one at a time',
      pass: parallel.rate >= 4 * serial.rate,
      note: `${fmt(parallel.rate / serial.rate, 2)}× the one-at-a-time rate of this run; both processes used ${fmt((parallel.rate * parallel.cpuMsPerOp) / 1000, 2)} of ${cores} cores (${fmt(parallel.cpuMsPerOp, 2)} ms CPU per op); with ${cores} free cores the CPU bound is ${Math.round(cpuBound)} ops/s = ${fmt(cpuBound / serial.rate, 1)}×; load ${load1()}`,
    });

    t0 = performance.now();
    const idle = await local.sync.run(id, me, [SYNTH.dataset]);
    ctx.add({
      section: 'sync',
      name: `sync with nothing to do (${PULL_RECORDS} records known)`,
      value: Math.round(performance.now() - t0),
      unit: 'ms',
      note: `${idle.pulled} pulled, ${idle.pushed} pushed`,
    });

    // Live mode: a local write until the remote answers it (polled every 25 ms), one at a time.
    const lags = await liveLag(local, me, remote.api, field);
    for (const p of [50, 95]) {
      ctx.add({
        section: 'sync',
        name: `live mode: local write visible on the remote, p${p} (${lags.length} writes)`,
        value: Math.round(percentile(lags, p)),
        unit: 'ms',
        target: '≤ 10,000 ms',
        pass: percentile(lags, p) <= 10_000,
        note: `${PUSH_DELAY_MS} ms of it is the debounce after the last edit`,
      });
    }
  } finally {
    await local.close();
    await remote.child.stop();
  }
  await labPush(ctx);
}

/**
 * `count` value edits queued on records from..from+count, then pushed with `concurrency` records
 * in flight: the rate, and the CPU both processes spent per operation.
 */
async function timePush(
  local: Service,
  me: User,
  id: number,
  remote: Child,
  concurrency: number,
  from: number,
  count: number,
  field: string,
) {
  for (let i = from; i < from + count; i++) setValue(local.domain, me, SYNTH.record(i), field, `pushed ${i}`);
  // The edits' own search indexing is theirs, not the push's: it would otherwise run inside
  // the timed push (the indexer follows every 250 ms) and be counted as push CPU.
  local.domain.search.catchUp();
  const cpu0 = process.cpuUsage();
  const remote0 = (await remote.stats()).cpuUs ?? 0;
  const t = performance.now();
  const s = await local.sync.engine(id, me, concurrency).push();
  const ms = performance.now() - t;
  const cpu = process.cpuUsage(cpu0);
  const remoteCpuMs = ((await remote.stats()).cpuUs ?? 0) / 1000 - remote0 / 1000;
  if (s.pushed !== count) throw new Error(`pushed ${s.pushed} of ${count} at concurrency ${concurrency}`);
  return { rate: count / (ms / 1000), cpuMsPerOp: ((cpu.user + cpu.system) / 1000 + remoteCpuMs) / count, ms };
}

/**
 * The same push to a remote behind a proxy holding each packet LAB_DELAY_MS each way, as a lab's
 * ODR server (PHP answer time, campus network) would: there the records in flight overlap the
 * round trips, which on loopback are too short to matter beside the CPU.
 */
async function labPush(ctx: BenchContext): Promise<void> {
  const remote = await startRemote(ctx, 'data-sync-lab-remote', LAB_RECORDS);
  // A lab's server is a real ODR server: it does not guard writes, so each record is read first.
  const proxy = await forkTs('latencyProxy.ts', [String(remote.child.port), String(LAB_DELAY_MS), 'real-odr']);
  const local = await createService({ dataDir: freshDir(ctx, 'data-sync-lab-local'), admin: BENCH_ADMIN, liveSync: false });
  try {
    const me = local.domain.users.firstSuperUser()!;
    const api = `http://127.0.0.1:${proxy.port}/api/v4`;
    const said = await fetch(`${api}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: BENCH_ADMIN.email, password: BENCH_ADMIN.password }),
    });
    await said.body?.cancel();
    if (said.headers.has(GUARDED_WRITES_HEADER)) throw new Error('the lab proxy passed on the guarded-writes header');
    const id = await local.sync.addRemote(api, BENCH_ADMIN.email, BENCH_ADMIN.password);
    const pull = await local.sync.run(id, me, [SYNTH.dataset]);
    if (pull.error) throw new Error(`pull through the proxy failed: ${pull.error}`);
    const field = SYNTH.field('Medium Text');
    // Each pushed record read first, counted where the requests pass: a guarded-writes header
    // that slipped through would make these figures those of guarded writes without a word.
    const readFirst = async <T>(push: () => Promise<T>): Promise<T> => {
      const reads = async () => ((await proxy.stats()) as { recordReads?: number }).recordReads ?? 0;
      const before = await reads();
      const r = await push();
      const read = (await reads()) - before;
      if (read < LAB_EDITS) throw new Error(`the lab push read ${read} records for ${LAB_EDITS} edits: not the read-first path`);
      return r;
    };
    const serial = await readFirst(() => timePush(local, me, id, remote.child, 1, 0, LAB_EDITS, field));
    const parallel = await readFirst(() => timePush(local, me, id, remote.child, PUSH_CONCURRENCY, LAB_EDITS, LAB_EDITS, field));
    const lab = `remote behind a ${LAB_DELAY_MS} ms-each-way proxy, as a real ODR server (read first)`;
    ctx.add({
      section: 'sync',
      name: `push of ${LAB_EDITS} queued edits, one record at a time, ${lab}`,
      value: Math.round(serial.rate),
      unit: 'ops/s',
      note: `${fmt(serial.ms / LAB_EDITS, 1)} ms wall per op of which ${fmt(serial.cpuMsPerOp, 2)} ms CPU (both services)`,
    });
    ctx.add({
      section: 'sync',
      name: `push of ${LAB_EDITS} queued edits, ${PUSH_CONCURRENCY} records in flight, ${lab}`,
      value: Math.round(parallel.rate),
      unit: 'ops/s',
      target: '≥ 4× one at a time',
      pass: parallel.rate >= 4 * serial.rate,
      note: `${fmt(parallel.rate / serial.rate, 2)}× the one-at-a-time rate of this run; load ${load1()}`,
    });
  } finally {
    await local.close();
    await proxy.stop();
    await remote.child.stop();
  }
}

const LAG_SAMPLES = 15;

async function liveLag(local: Service, me: User, remoteUrl: string, field: string): Promise<number[]> {
  const reader = new OdrClient({ baseUrl: remoteUrl });
  await reader.login(BENCH_ADMIN.email, BENCH_ADMIN.password);
  const idle = () => local.sync.live.statuses().every((s) => s.state === 'online' && s.pending === 0);
  const until = async (ok: () => boolean | Promise<boolean>, what: string) => {
    const end = Date.now() + 60_000;
    while (!(await ok())) {
      if (Date.now() > end) throw new Error(`live mode: ${what} did not happen within 60 s`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  local.sync.live.start();
  const lags: number[] = [];
  try {
    await until(idle, 'the first pass');
    for (let i = 0; i < LAG_SAMPLES; i++) {
      // Past the records the push edited when there are enough; BENCH_SYNC_RECORDS may be smaller.
      const rec = SYNTH.record((2 * PUSH_EDITS + i) % PULL_RECORDS);
      const v = `live ${i} ${Date.now()}`;
      const t = performance.now();
      setValue(local.domain, me, rec, field, v);
      await until(async () => (await reader.record(rec)).fields.find((f) => f.field_uuid === field)?.value === v, `write ${i}`);
      lags.push(performance.now() - t);
      await until(idle, 'the pass to settle');
    }
  } finally {
    await local.sync.live.stop();
  }
  return lags.sort((a, b) => a - b);
}
