import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { createService } from '../../electron/service/service.js';
import { importFile } from '../../electron/service/domain/import/importFile.js';
import { SYNTH, syntheticTemplate, writeSyntheticExport } from '../synthetic.js';
import { fileSize, fmt, forkTs, freshDir, timeIt, type BenchContext } from '../util.js';

const ADMIN = { email: 'bench@localhost', password: 'bench-password' };
const BASE = 'http://bench.local/api/v4';

async function load(url: string, opts: { connections: number; seconds: number; headers?: Record<string, string>; method?: string; body?: string; paths?: () => string }) {
  const r = await autocannon({
    url, connections: opts.connections, duration: opts.seconds, headers: opts.headers, method: (opts.method ?? 'GET') as 'GET',
    body: opts.body,
    requests: opts.paths ? [{ setupRequest: (req) => ({ ...req, path: opts.paths!() }) }] : undefined,
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

/** Issue 2's figures: import, reads, lists, writes, saves, size, RSS, against same-machine limits. */
export async function coreBench(ctx: BenchContext): Promise<void> {
  const n = ctx.records;
  const exportFile = path.join(ctx.work, `synthetic-${n}.json`);
  if (!existsSync(exportFile)) {
    console.log(`  generating ${n} synthetic records…`);
    await writeSyntheticExport(exportFile, n);
  }
  const templateFile = path.join(ctx.work, 'synthetic-template.json');
  writeFileSync(templateFile, JSON.stringify(syntheticTemplate()));
  const dataDir = freshDir(ctx, 'data-core');

  const service = await createService({ dataDir, admin: ADMIN });
  const user = service.domain.users.firstSuperUser()!;
  await importFile(service.domain, user, templateFile);
  const t0 = performance.now();
  const summary = await importFile(service.domain, user, exportFile);
  const importSecs = (performance.now() - t0) / 1000;
  const total = summary.records.imported + summary.records.children;
  ctx.add({ section: 'core', name: `import ${n} records (+${summary.records.children} children)`, value: +fmt(importSecs, 1), unit: 's', target: '≤ 20 s', pass: importSecs <= 20 });
  ctx.add({ section: 'core', name: 'import rate', value: Math.round(total / importSecs), unit: 'records/s' });

  // The full-text index follows the change log after an import (it waits while one runs).
  const t1 = performance.now();
  service.domain.search.catchUp();
  const indexSecs = (performance.now() - t1) / 1000;
  ctx.add({ section: 'core', name: 'full-text index catch-up after the import', value: +fmt(indexSecs, 1), unit: 's', note: `${Math.round(total / indexSecs)} records/s, in the background in the app` });

  service.ctx.db.pragma('wal_checkpoint(TRUNCATE)');
  const dbBytes = fileSize(path.join(dataDir, 'odr.sqlite'));
  const jsonBytes = fileSize(exportFile);
  ctx.add({ section: 'core', name: 'database size / JSON export size', value: +fmt(dbBytes / jsonBytes, 2), unit: '×', note: `${fmt(dbBytes / 2 ** 20, 0)} MB vs ${fmt(jsonBytes / 2 ** 20, 0)} MB` });

  const credentials = JSON.stringify({ username: ADMIN.email, password: ADMIN.password });
  const token = await (await service.fetch(new Request(`${BASE}/token`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: credentials,
  }))).json() as { token: string };
  const auth = { Authorization: `Bearer ${token.token}` };
  const pick = (i: number) => SYNTH.record((i * 7919) % n);
  const get = async (p: string) => {
    const res = await service.fetch(new Request(`${BASE}${p}`, { headers: auth }));
    if (res.status !== 200) throw new Error(`${p} → ${res.status}`);
    return res.text();
  };

  const point = service.ctx.db.prepare('SELECT value FROM field_values WHERE record_rid = ? AND datafield_id = ?');
  const raw = await timeIt(20000, (i) => point.get(1 + (i * 7919) % n, 9001));
  ctx.add({ section: 'core', name: 'limit: raw SQLite point query p50', value: +fmt(raw.p50 * 1000, 1), unit: 'µs' });

  const reader = service.domain.reader;
  const render = await timeIt(5000, (i) => JSON.stringify(reader.renderRecord(service.domain.store.byUuid(pick(i))!, { viewer: user, now: service.domain.now(), apiBase: BASE })));
  ctx.add({ section: 'core', name: 'record JSON build (domain) p50', value: +fmt(render.p50 * 1000, 0), unit: 'µs' });
  const read = await timeIt(5000, (i) => get(`/dataset/record/${pick(i)}`));
  ctx.add({ section: 'core', name: 'record read in-process (app.fetch) p50', value: +fmt(read.p50, 3), unit: 'ms', target: '≤ 1 ms', pass: read.p50 <= 1 });
  ctx.add({ section: 'core', name: 'record read in-process p99', value: +fmt(read.p99, 3), unit: 'ms' });

  const list = await timeIt(300, (i) => get(`/dataset/${SYNTH.dataset}/100/${(i * 7919) % (n - 100)}`), 20);
  ctx.add({ section: 'core', name: 'list-100 in-process p50', value: +fmt(list.p50, 2), unit: 'ms', target: '≤ 10 ms', pass: list.p50 <= 10 });

  const textField = SYNTH.field('Long Text');
  const writes = await timeIt(3000, async (i) => {
    const res = await service.fetch(new Request(`${BASE}/record/${pick(i)}/${textField}/value`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ value: `edit ${i}` }),
    }));
    if (res.status !== 200) throw new Error(`value → ${res.status}`);
    await res.arrayBuffer();
  }, 50);
  ctx.add({ section: 'core', name: 'durable value writes in-process, one at a time', value: Math.round(writes.perSec), unit: 'writes/s', note: 'each waits for its own fsync' });

  const save = await timeIt(1000, async (i) => {
    const res = await service.fetch(new Request(`${BASE}/dataset/record`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ record_uuid: pick(i), fields: [
        { field_uuid: SYNTH.field('Medium Text'), value: `saved ${i}` },
        { field_uuid: SYNTH.field('Integer'), value: String(i) },
        { field_uuid: SYNTH.field('Single Select'), values: [{ template_radio_option_uuid: SYNTH.option('Single Select', 1 + (i % 4)) }] },
      ] }),
    }));
    if (res.status !== 200) throw new Error(`save → ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }, 50);
  ctx.add({ section: 'core', name: 'delta save (3 fields) p50', value: +fmt(save.p50, 2), unit: 'ms' });
  const sample = await get(`/dataset/record/${pick(1)}`);
  await service.close();

  // Over HTTP, server in its own process; the bare node:http server returning the same bytes is the limit.
  const server = await forkTs('server.ts', [dataDir]);
  const url = `http://127.0.0.1:${server.port}`;
  const login = await fetch(`${url}/api/v4/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: credentials });
  const httpAuth = { Authorization: `Bearer ${((await login.json()) as { token: string }).token}` };
  let k = 0;
  const httpReads = await load(url, { connections: 50, seconds: 8, headers: httpAuth, paths: () => `/api/v4/dataset/record/${pick(k++)}` });
  let w = 0;
  const httpWrites = await load(url, {
    connections: 8, seconds: 6, method: 'POST', headers: { ...httpAuth, 'content-type': 'application/json' },
    body: JSON.stringify({ value: 'edited over http' }), paths: () => `/api/v4/record/${pick(w++)}/${textField}/value`,
  });
  const stats = await server.stop();
  const bare = await forkTs('bare.ts', [sample]);
  const bareReads = await load(`http://127.0.0.1:${bare.port}`, { connections: 50, seconds: 8 });
  await bare.stop();

  ctx.add({ section: 'core', name: 'limit: bare node:http, same bytes, keep-alive c=50', value: Math.round(bareReads.rps), unit: 'req/s' });
  const ratio = httpReads.rps / bareReads.rps;
  ctx.add({ section: 'core', name: 'HTTP record reads, keep-alive c=50', value: Math.round(httpReads.rps), unit: 'req/s', target: '≥ 50 % of bare', pass: ratio >= 0.5, note: `${fmt(ratio * 100, 0)} % of bare, p50 ${httpReads.p50} ms, ${httpReads.errors} errors` });
  ctx.add({ section: 'core', name: 'durable value writes over HTTP, c=8 (group commit)', value: Math.round(httpWrites.rps), unit: 'writes/s', target: '≥ 2000/s', pass: httpWrites.rps >= 2000 && httpWrites.errors === 0, note: `synchronous=FULL, p50 ${httpWrites.p50} ms, ${httpWrites.errors} errors` });
  const rss = stats.maxRssMb ?? NaN;
  ctx.add({ section: 'core', name: 'service peak RSS (100k-record DB, under load)', value: Math.round(rss), unit: 'MB', target: '≤ 300 MB', pass: rss <= 300 });
  ctx.add({ section: 'core', name: 'bench process peak RSS (import included)', value: Math.round(process.resourceUsage().maxRSS / 1024), unit: 'MB' });
}
