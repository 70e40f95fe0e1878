import { existsSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { createService } from '../../electron/service/service.js';
import { importFile } from '../../electron/service/domain/import/importFile.js';
import { bareWriteFsyncRate } from '../bareFsync.js';
import { SYNTH } from '../synthetic.js';
import { fmt, forkTs, freshDir, type BenchContext } from '../util.js';
import { ADMIN } from './core.js';

const CHEMIN = path.join(process.cwd(), '..', 'shared', 'fixtures', 'odr-real');

async function load(
  url: string,
  opts: { connections: number; seconds: number; headers?: Record<string, string>; method?: string; body?: string; paths?: () => string },
) {
  const r = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.seconds,
    headers: opts.headers,
    method: (opts.method ?? 'GET') as 'GET',
    body: opts.body,
    requests: opts.paths ? [{ setupRequest: (req) => ({ ...req, path: opts.paths!() }) }] : undefined,
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

async function token(url: string): Promise<Record<string, string>> {
  const res = await fetch(`${url}/api/v4/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: ADMIN.email, password: ADMIN.password }),
  });
  return { Authorization: `Bearer ${((await res.json()) as { token: string }).token}` };
}

/** One record read over and over (keep-alive, c=50) against a bare node:http server sending its bytes. */
async function hotRecord(ctx: BenchContext, dataDir: string, uuid: string, label: string): Promise<void> {
  const server = await forkTs('server.ts', [dataDir]);
  const url = `http://127.0.0.1:${server.port}`;
  const auth = await token(url);
  const p = `/api/v4/dataset/record/${uuid}`;
  const bytes = await (await fetch(`${url}${p}`, { headers: auth })).text();
  const ours = await load(url, { connections: 50, seconds: 8, headers: auth, paths: () => p });
  await server.stop();
  const bare = await forkTs('bare.ts', [bytes]);
  const limit = await load(`http://127.0.0.1:${bare.port}`, { connections: 50, seconds: 8 });
  await bare.stop();
  const ratio = ours.rps / limit.rps;
  ctx.add({
    section: 'http',
    name: `limit: bare node:http, ${label} bytes, keep-alive c=50`,
    value: Math.round(limit.rps),
    unit: 'req/s',
    note: `${fmt(Buffer.byteLength(bytes) / 1024, 1)} KB`,
  });
  ctx.add({
    section: 'http',
    name: `GET /dataset/record, ${label}, c=50`,
    value: Math.round(ours.rps),
    unit: 'req/s',
    target: '≥ 50 % of bare',
    pass: ratio >= 0.5 && ours.errors === 0,
    note: `${fmt(ratio * 100, 0)} % of bare, p50 ${ours.p50} ms, ${ours.errors} errors`,
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
  const writes = (connections: number) =>
    load(url, {
      connections,
      seconds: 6,
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ value: 'edited over http' }),
      paths: () => `/api/v4/record/${pick(w++)}/${textField}/value`,
    });
  const one = await writes(1);
  const before = await server.stop();
  const server8 = await forkTs('server.ts', [dataDir]);
  const eight = await load(`http://127.0.0.1:${server8.port}`, {
    connections: 8,
    seconds: 6,
    method: 'POST',
    headers: { ...(await token(`http://127.0.0.1:${server8.port}`)), 'content-type': 'application/json' },
    body: JSON.stringify({ value: 'edited over http' }),
    paths: () => `/api/v4/record/${pick(w++)}/${textField}/value`,
  });
  const stats = await server8.stop();
  const disk = bareWriteFsyncRate(path.join(ctx.work, 'fsync-probe.tmp'), 4096, 3);
  const ratio = eight.rps / one.rps;
  ctx.add({
    section: 'http',
    name: 'limit: disk, 4 KB write + fsync, one after another',
    value: Math.round(disk.perSec),
    unit: 'syncs/s',
    note: `p50 ${fmt(disk.p50Ms, 2)} ms`,
  });
  ctx.add({
    section: 'http',
    name: 'durable value writes over HTTP, 1 client',
    value: Math.round(one.rps),
    unit: 'writes/s',
    note: `synchronous=FULL, each waits for its own fsync, p50 ${one.p50} ms, ${one.errors} errors`,
  });
  ctx.add({
    section: 'http',
    name: 'durable value writes over HTTP, 8 clients',
    value: Math.round(eight.rps),
    unit: 'writes/s',
    target: '≥ 4× one client',
    pass: ratio >= 4 && eight.errors === 0,
    note: `${fmt(ratio, 1)}× one client, ${fmt((stats.operations ?? 0) / Math.max(1, stats.batches ?? 0), 1)} writes per commit, p50 ${eight.p50} ms, ${eight.errors} errors`,
  });
  const rss = Math.max(before.maxRssMb ?? NaN, stats.maxRssMb ?? NaN);
  ctx.add({
    section: 'http',
    name: `service peak RSS (${n} records, under load)`,
    value: Math.round(rss),
    unit: 'MB',
    target: '≤ 400 MB',
    pass: rss <= 400,
  });
  ctx.add({
    section: 'http',
    name: 'bench process peak RSS (imports included)',
    value: Math.round(process.resourceUsage().maxRSS / 1024),
    unit: 'MB',
  });
}
