// npm run bench — measures the targets named in the issues against limits measured on the same
// machine in the same run. Options: --records N (default 100000), --only core,files,sync,startup
// (or --only http: the HTTP read/write figures alone, on --records records)
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, type BenchContext } from './util.js';
import { coreBench } from './sections/core.js';
import { csvImportBench } from './sections/csvImport.js';
import { filesBench } from './sections/files.js';
import { httpOnlyBench } from './sections/http.js';
import { startupBench } from './sections/startup.js';
import { searchBench } from './sections/search.js';
import { syncBench } from './sections/sync.js';
import { uiBench } from './sections/ui.js';

const { values } = parseArgs({ options: { records: { type: 'string' }, only: { type: 'string' } } });
const work = path.join(BENCH_DIR, '..', '.bench');
mkdirSync(work, { recursive: true });
const ctx: BenchContext = {
  records: values.records ? Number(values.records) : 100_000,
  work,
  rows: [],
  add: (row) => {
    ctx.rows.push(row);
    const mark = row.pass === undefined ? '    ' : row.pass ? ' ok ' : 'MISS';
    console.log(
      `  ${mark} ${row.name.padEnd(52)} ${String(row.value).padStart(12)} ${row.unit.padEnd(10)} ${row.target ?? ''}${row.note ? `  (${row.note})` : ''}`,
    );
  },
};

const sections: Record<string, (c: BenchContext) => Promise<void>> = {
  core: coreBench,
  startup: startupBench,
  ui: uiBench,
  files: filesBench,
  sync: syncBench,
  search: searchBench,
  csv: csvImportBench,
};
// Not in the default run: core measures the same figures at 100k.
const extra: Record<string, (c: BenchContext) => Promise<void>> = { http: httpOnlyBench };
const only = values.only ? values.only.split(',') : Object.keys(sections);
console.log(`odr-desktop bench — ${new Date().toISOString()} — node ${process.version}, ${ctx.records} records`);
for (const name of only) {
  const run = sections[name] ?? extra[name];
  if (!run) throw new Error(`unknown section ${name}`);
  console.log(`\n[${name}]`);
  await run(ctx);
}
const out = path.join(work, 'results.json');
writeFileSync(out, JSON.stringify({ at: new Date().toISOString(), records: ctx.records, rows: ctx.rows }, null, 2));
const missed = ctx.rows.filter((r) => r.pass === false);
console.log(`\n${ctx.rows.length} figures, ${missed.length} target(s) missed; written to ${path.relative(process.cwd(), out)}`);
