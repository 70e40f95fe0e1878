import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createService } from '../../electron/service/service.js';
import { importFile } from '../../electron/service/domain/import/importFile.js';
import { FIELD_TYPE_NAMES } from '../../shared/fieldTypes.js';
import { SYNTH, syntheticTemplate, writeSyntheticExport } from '../synthetic.js';
import { fmt, freshDir, timeIt, type BenchContext } from '../util.js';

const ADMIN = { email: 'bench@localhost', password: 'bench-password' };
const BASE = 'http://bench.local/api/v4';
const key = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** Issue 14's search figures: one-field searches over the ODR search routes at N records. */
export async function searchBench(ctx: BenchContext): Promise<void> {
  const n = ctx.records;
  const exportFile = path.join(ctx.work, `synthetic-${n}.json`);
  if (!existsSync(exportFile)) {
    console.log(`  generating ${n} synthetic records…`);
    await writeSyntheticExport(exportFile, n);
  }
  const templateFile = path.join(ctx.work, 'synthetic-template.json');
  writeFileSync(templateFile, JSON.stringify(syntheticTemplate()));
  const service = await createService({ dataDir: freshDir(ctx, 'data-search'), admin: ADMIN });
  const user = service.domain.users.firstSuperUser()!;
  await importFile(service.domain, user, templateFile);
  await importFile(service.domain, user, exportFile);
  service.domain.search.catchUp();

  const token = ((await (await service.fetch(new Request(`${BASE}/token`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: ADMIN.email, password: ADMIN.password }),
  }))).json()) as { token: string }).token;
  const auth = { Authorization: `Bearer ${token}` };
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await service.fetch(new Request(`${BASE}${p}`, {
      method, headers: { ...auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    }));
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${p} → ${res.status} ${text.slice(0, 200)}`);
    return JSON.parse(text) as { records: unknown[]; count?: number };
  };

  // The same-run reference: a page of 100 full records through the plain list route.
  const list = await timeIt(100, (i) => call('GET', `/dataset/${SYNTH.dataset}/100/${(i * 7919) % (n - 100)}`), 10);
  ctx.add({ section: 'search', name: 'reference: list-100 full records p50', value: +fmt(list.p50, 2), unit: 'ms' });

  const fieldSearch = (field: string, value: (i: number) => string) => (i: number) =>
    call('POST', `/dataset/${SYNTH.dataset}/search/100/0`, { fields: [{ field_uuid: field, value: value(i) }] });
  const cases: [string, (i: number) => Promise<unknown>, boolean][] = [
    ['one field, text contains (Sample ID, ~1 hit)', fieldSearch(SYNTH.field('Short Text'), (i) => `S-${String((i * 7919) % n).padStart(6, '0')}`), true],
    ['one field, text exact (Sample ID)', fieldSearch(SYNTH.field('Short Text'), (i) => `"S-${String((i * 7919) % n).padStart(6, '0')}"`), true],
    ['one field, integer range (~1 % of records)', fieldSearch(SYNTH.field('Integer'), (i) => `>=${(i * 37) % 90000} <${((i * 37) % 90000) + 1000}`), true],
    ['one field, option selected (~33 % of records)', fieldSearch(SYNTH.field('Single Radio'), (i) => SYNTH.option('Single Radio', 1 + (i % 3))), true],
    ['one field, text contains a common word (~16 %)', fieldSearch(SYNTH.field('Medium Text'), (i) => ['basalt', 'quartz', 'clay'][i % 3]!), false],
  ];
  for (const [name, fn, gated] of cases) {
    const r = await timeIt(60, fn, 5);
    ctx.add({ section: 'search', name: `${name} p50`, value: +fmt(r.p50, 2), unit: 'ms', ...(gated ? { target: '≤ 20 ms', pass: r.p50 <= 20 } : {}), note: `p99 ${fmt(r.p99, 1)} ms, first 100 rendered` });
  }
  const gen = await timeIt(60, (i) => call('GET', `/dataset/search/${key({ dt_id: '901', gen: ['hematite', 'olivine', 'sulfate'][i % 3] })}/100/0/1`), 5);
  ctx.add({ section: 'search', name: 'dataset key, general text (full-text index) p50', value: +fmt(gen.p50, 2), unit: 'ms', note: `p99 ${fmt(gen.p99, 1)} ms, ids only` });
  const dateField = 9001 + FIELD_TYPE_NAMES.indexOf('DateTime');
  const dates = await timeIt(60, (i) => call('GET', `/dataset/search/${key({ dt_id: '901', [`${dateField}_s`]: `20${10 + (i % 14)}-01-01`, [`${dateField}_e`]: `20${10 + (i % 14)}-03-31` })}/100/0/1`), 5);
  ctx.add({ section: 'search', name: 'dataset key, one date range p50', value: +fmt(dates.p50, 2), unit: 'ms', target: '≤ 20 ms', pass: dates.p50 <= 20, note: `p99 ${fmt(dates.p99, 1)} ms` });
  const stats = await timeIt(20, () => call('GET', `/search/field/stats/${SYNTH.dataset}/${SYNTH.field('Multiple Select')}`), 2);
  ctx.add({ section: 'search', name: 'field stats, Multiple Select over all records p50', value: +fmt(stats.p50, 1), unit: 'ms' });
  await service.close();
}
