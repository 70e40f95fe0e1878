import { existsSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { createService } from '../../electron/service/service.js';
import { importFile } from '../../electron/service/domain/import/importFile.js';
import { bareWriteFsyncRate } from '../bareFsync.js';
import { SYNTH } from '../synthetic.js';
import { alternate, fmt, forkTs, freshDir, median, type BenchContext } from '../util.js';
import { ADMIN, buildScale } from './core.js';

const CHEMIN = path.join(process.cwd(), '..', 'shared', 'fixtures', 'odr-real');

type Load = { rps: number; p50: number; p99: number; errors: number; requests: number };

async function load(
  url: string,
  opts: {
    connections: number;
    seconds: number;
    headers?: Record<string, string>;
    method?: string;
    /** Each request's path and (for writes) body. */
    paths?: () => string;
    bodies?: () => string;
  },
): Promise<Load> {
  const r = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.seconds,
    headers: opts.headers,
    method: (opts.method ?? 'GET') as 'GET',
    requests: opts.paths
      ? [{ setupRequest: (req) => ({ ...req, path: opts.paths!(), ...(opts.bodies ? { body: opts.bodies() } : {}) }) }]
      : undefined,
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx, requests: r.requests.total };
}

/** `alternate` of two loads: each side's median figures, and the median of the rounds' a/b ratios of req/s. */
async function alternateLoads(rounds: number, a: () => Promise<Load>, b: () => Promise<Load>) {
  const { as, bs } = await alternate(rounds, a, b);
  const pick = (ls: Load[]): Load => ({
    rps: median(ls.map((l) => l.rps)),
    p50: median(ls.map((l) => l.p50)),
    p99: median(ls.map((l) => l.p99)),
    errors: ls.reduce((n, l) => n + l.errors, 0),
    requests: ls.reduce((n, l) => n + l.requests, 0),
  });
  const ratios = as.map((l, i) => l.rps / bs[i]!.rps);
  return { a: pick(as), b: pick(bs), ratio: median(ratios), ratios };
}

async function token(url: string): Promise<Record<string, string>> {
  const res = await fetch(`${url}/api/v4/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: ADMIN.email, password: ADMIN.password }),
  });
  return { Authorization: `Bearer ${((await res.json()) as { token: string }).token}` };
}

/** The headers node:http adds itself; the rest is what a server chose to send. */
const OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length']);
const chosenHeaders = (res: Response) => Object.fromEntries([...res.headers].filter(([k]) => !OWN_HEADERS.has(k)));

/**
 * One record read over and over (keep-alive, c=50, one autocannon in this process) against a
 * bare node:http server sending the same bytes with the same headers, in alternating rounds.
 */
async function hotRecord(ctx: BenchContext, dataDir: string, uuid: string, label: string): Promise<void> {
  const server = await forkTs('server.ts', [dataDir]);
  const url = `http://127.0.0.1:${server.port}`;
  const auth = await token(url);
  const p = `/api/v4/dataset/record/${uuid}`;
  const first = await fetch(`${url}${p}`, { headers: auth });
  const bytes = await first.text();
  const headers = chosenHeaders(first);
  const bare = await forkTs('bare.ts', [bytes, JSON.stringify(headers)]);
  const bareUrl = `http://127.0.0.1:${bare.port}`;
  const check = await fetch(bareUrl);
  if ((await check.text()) !== bytes || JSON.stringify(chosenHeaders(check)) !== JSON.stringify(headers))
    throw new Error('the bare server does not answer what the service answers');
  const cpu0 = [(await server.stats()).cpuUs ?? 0, (await bare.stats()).cpuUs ?? 0];
  const run = await alternateLoads(
    8,
    // The same request shape on both sides (a fixed URL): autocannon's per-request path hook
    // costs the load generator more than the bare server costs.
    () => load(`${url}${p}`, { connections: 50, seconds: 1.5, headers: auth }),
    () => load(`${bareUrl}${p}`, { connections: 50, seconds: 1.5, headers: auth }),
  );
  // CPU per request hardly moves with the machine's load, unlike req/s: shown beside it.
  const cpuPer = [((await server.stats()).cpuUs! - cpu0[0]!) / run.a.requests, ((await bare.stats()).cpuUs! - cpu0[1]!) / run.b.requests];
  await server.stop();
  await bare.stop();
  ctx.add({
    section: 'http',
    name: `limit: bare node:http, ${label} bytes, keep-alive c=50`,
    value: Math.round(run.b.rps),
    unit: 'req/s',
    note: `${fmt(Buffer.byteLength(bytes) / 1024, 1)} KB, the same ${Object.keys(headers).length + 4} headers, ${fmt(cpuPer[1]!, 0)} µs CPU per request`,
  });
  ctx.add({
    section: 'http',
    name: `GET /dataset/record, ${label}, c=50`,
    value: Math.round(run.a.rps),
    unit: 'req/s',
    target: '≥ 50 % of bare',
    pass: run.ratio >= 0.5 && run.a.errors === 0,
    note: `${fmt(run.ratio * 100, 0)} % of bare (median of rounds ${run.ratios.map((r) => fmt(r * 100, 0)).join('/')} %), ${fmt(cpuPer[0]!, 0)} µs CPU per request, p50 ${run.a.p50} ms, ${run.a.errors} errors`,
  });
}

/** Issue 17's HTTP figures: reads against bare node:http, durable writes against one writer and the disk. */
export async function httpBench(ctx: BenchContext, dataDir: string, n: number): Promise<void> {
  await hotRecord(ctx, dataDir, SYNTH.record(10), 'synthetic record');

  const chemin = path.join(CHEMIN, 'chemin_data.json');
  if (existsSync(chemin)) {
    const dir = freshDir(ctx, 'data-chemin');
    const service = await createService({ dataDir: dir, admin: ADMIN });
    const user = service.domain.users.firstSuperUser()!;
    await importFile(service.domain, user, path.join(CHEMIN, 'chemin_template.json'));
    await importFile(service.domain, user, chemin);
    // The largest record of the export, as the issue measured it.
    const tops = service.ctx.db.prepare('SELECT uuid FROM records WHERE parent_rid IS NULL').pluck().all() as string[];
    const opts = { viewer: user, now: service.domain.now(), apiBase: 'http://127.0.0.1/api/v4' };
    const size = (u: string) => JSON.stringify(service.domain.render(service.domain.store.byUuid(u)!, opts)).length;
    const biggest = tops.reduce((a, b) => (size(b) > size(a) ? b : a));
    await service.close();
    await hotRecord(ctx, dir, biggest, 'real CheMin record');
  } else {
    console.log(`  skip: the real CheMin export is not at ${chemin}`);
  }

  const server = await forkTs('server.ts', [dataDir]);
  const url = `http://127.0.0.1:${server.port}`;
  const auth = await token(url);
  let k = 0;
  const pick = (i: number) => SYNTH.record((i * 7919) % n);
  const cold = await load(url, { connections: 50, seconds: 6, headers: auth, paths: () => `/api/v4/dataset/record/${pick(k++)}` });
  ctx.add({
    section: 'http',
    name: 'GET /dataset/record, distinct records, c=50',
    value: Math.round(cold.rps),
    unit: 'req/s',
    note: `every read a different record (cache cold), p50 ${cold.p50} ms, ${cold.errors} errors`,
  });

  const textField = SYNTH.field('Long Text');
  let w = 0;
  const writes =
    (connections: number, to = url) =>
    () =>
      load(to, {
        connections,
        seconds: 4,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        // A value never stored before: a write of the value already there changes nothing and commits nothing.
        bodies: () => JSON.stringify({ value: `edited over http ${w}` }),
        paths: () => `/api/v4/record/${pick(++w)}/${textField}/value`,
      });
  // Per side: writes per commit, server CPU per write and time in the commit (its fsync included),
  // summed over that side's rounds, to show where a batch's time goes.
  const sums = new Map<number, { batches: number; operations: number; cpuUs: number; commitMs: number; requests: number }>();
  const counted = (connections: number) => async () => {
    const s0 = await server.stats();
    const r = await writes(connections)();
    const s1 = await server.stats();
    const t = sums.get(connections) ?? { batches: 0, operations: 0, cpuUs: 0, commitMs: 0, requests: 0 };
    t.batches += (s1.batches ?? 0) - (s0.batches ?? 0);
    t.operations += (s1.operations ?? 0) - (s0.operations ?? 0);
    t.cpuUs += (s1.cpuUs ?? 0) - (s0.cpuUs ?? 0);
    t.commitMs += (s1.commitMs ?? 0) - (s0.commitMs ?? 0);
    t.requests += r.requests;
    sums.set(connections, t);
    return r;
  };
  const run = await alternateLoads(3, counted(8), counted(1));
  const where = (connections: number) => {
    const t = sums.get(connections)!;
    return `${fmt(t.operations / Math.max(1, t.batches), 1)} writes per commit, ${fmt(t.cpuUs / Math.max(1, t.requests), 0)} µs CPU per write, ${fmt(t.commitMs / Math.max(1, t.batches), 2)} ms per commit`;
  };
  // Each side's CPU per write is w + k / (writes per commit): solved for the part every write
  // pays (w: request, checks, rows, answer) and the part a commit pays once (k: its page writes,
  // the fsync's system time), which is what group commit can share.
  const per = (connections: number) => {
    const t = sums.get(connections)!;
    return { cpu: t.cpuUs / Math.max(1, t.requests), perCommit: t.operations / Math.max(1, t.batches) };
  };
  const [one, eight] = [per(1), per(8)];
  const commitCpu = (one.cpu - eight.cpu) / (1 / one.perCommit - 1 / eight.perCommit);
  const writeCpu = one.cpu - commitCpu / one.perCommit;
  // The bare group-commit server answers with the bytes one of our writes answers.
  const answer = await fetch(`${url}/api/v4/record/${pick(++w)}/${textField}/value`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ value: `edited over http ${w}` }),
  }).then((r) => r.text());
  const stats = await server.stop();
  const bare = await forkTs('bareGroupCommit.ts', [path.join(ctx.work, 'bare-group-commit.db'), answer, String(n)]);
  const bareRun = await alternateLoads(3, writes(8, `http://127.0.0.1:${bare.port}`), writes(1, `http://127.0.0.1:${bare.port}`));
  await bare.stop();
  const disk = bareWriteFsyncRate(path.join(ctx.work, 'fsync-probe.tmp'), 4096, 3);
  ctx.add({
    section: 'http',
    name: 'limit: disk, 4 KB write + fsync, one after another',
    value: Math.round(disk.perSec),
    unit: 'syncs/s',
    note: `p50 ${fmt(disk.p50Ms, 2)} ms`,
  });
  ctx.add({
    section: 'http',
    name: 'limit: bare node:http + SQLite group commit, 8 clients',
    value: Math.round(bareRun.a.rps),
    unit: 'writes/s',
    note: `${fmt(bareRun.ratio, 1)}× its 1 client (${Math.round(bareRun.b.rps)}/s; rounds ${bareRun.ratios.map((r) => fmt(r, 1)).join('/')}): one UPDATE per write, synchronous=FULL, no auth, checks, change log, index or render; what this disk and these cores allow any server`,
  });
  ctx.add({
    section: 'http',
    name: 'durable value writes over HTTP, 1 client',
    value: Math.round(run.b.rps),
    unit: 'writes/s',
    note: `synchronous=FULL, each waits for its own fsync; ${where(1)}, p50 ${run.b.p50} ms, ${run.b.errors} errors`,
  });
  ctx.add({
    section: 'http',
    name: 'durable value writes over HTTP, 8 clients',
    value: Math.round(run.a.rps),
    unit: 'writes/s',
    target: '≥ 4× one client',
    pass: run.ratio >= 4 && run.a.errors === 0,
    note: `${fmt(run.ratio, 1)}× one client (rounds ${run.ratios.map((r) => fmt(r, 1)).join('/')}; the bare limit ${fmt(bareRun.ratio, 1)}×); ${where(8)}, p50 ${run.a.p50} ms, ${run.a.errors} errors`,
  });
  ctx.add({
    section: 'http',
    name: 'durable write CPU: per write + per commit',
    value: Math.round(writeCpu),
    unit: 'µs',
    note: `+ ${Math.round(commitCpu)} µs per commit (solved from both sides' CPU per write); with the fsync on this thread and 8 writes per commit, 4× one client needs a commit (its CPU and fsync) to take ≥ 6 writes' CPU`,
  });
  const rss = stats.maxRssMb ?? NaN;
  ctx.add({
    section: 'http',
    name: `service peak RSS (${n} records, under load)`,
    value: Math.round(rss),
    unit: 'MB',
    target: '≤ 400 MB',
    pass: rss <= 400,
    note: stats.peakParts ? `at its highest sample: ${stats.peakParts}` : undefined,
  });
  ctx.add({
    section: 'http',
    name: 'bench process peak RSS (imports included)',
    value: Math.round(process.resourceUsage().maxRSS / 1024),
    unit: 'MB',
  });
}

/** `--only http`: the HTTP figures alone, on a fresh dataset of --records (10k is plenty: they do not grow with it). */
export async function httpOnlyBench(ctx: BenchContext): Promise<void> {
  const { dataDir, service } = await buildScale(ctx, ctx.records, 'data-http');
  await service.close();
  await httpBench(ctx, dataDir, ctx.records);
}
