// npm run bench — measures the targets named in the issues against limits measured on the same
// machine in the same run, and prints PASS or MISS for each target. Options:
//   --records N        the largest scale (default 100000); the startup and ui sections use it
//   --scale a,b,c      the core section's scales (default 10000,100000 and --records if larger)
//   --only core,...    sections: core, startup, ui, files, sync, syncfiles, search (all by default), or http
//                      (the HTTP read/write figures alone, on --records records)
//   --reuse            opens the synthetic databases a previous run built in .bench/ (and keeps
//                      them) instead of building them again: no import figures, the rest
//                      measured as usual (a 1M build takes ~10-30 min)
//   --readme           writes the results table into README.md between the bench markers
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, fmt, load1, scaleTag, type BenchContext } from './util.js';
import { coreBench } from './sections/core.js';
import { csvImportBench } from './sections/csvImport.js';
import { exportBench } from './sections/export.js';
import { filesBench } from './sections/files.js';
import { httpOnlyBench } from './sections/http.js';
import { startupBench } from './sections/startup.js';
import { searchBench } from './sections/search.js';
import { syncBench } from './sections/sync.js';
import { syncFilesBench } from './sections/syncFiles.js';
import { uiBench } from './sections/ui.js';
import { writeReadme, type RunInfo } from './readme.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string' },
    scale: { type: 'string' },
    only: { type: 'string' },
    readme: { type: 'boolean' },
    reuse: { type: 'boolean' },
  },
});
const count = (s: string) => {
  const n = Number(s.replace(/_/g, ''));
  if (!Number.isSafeInteger(n) || n < 1000 || n > 2_000_000) throw new Error(`a scale must be 1000..2000000 records, not "${s}"`);
  return n;
};
const asked = values.scale ? values.scale.split(',').map(count) : [];
const records = values.records ? count(values.records) : asked.length ? Math.max(...asked) : 100_000;
const scales = [...new Set(asked.length ? asked : [10_000, 100_000, records])].filter((s) => s <= records).sort((a, b) => a - b);
if (!scales.includes(records)) scales.push(records);
const work = path.join(BENCH_DIR, '..', '.bench');
mkdirSync(work, { recursive: true });
const ctx: BenchContext = {
  records,
  scales,
  work,
  reuse: values.reuse ?? false,
  rows: [],
  add: (row) => {
    ctx.rows.push(row);
    const mark = row.pass === undefined ? '    ' : row.pass ? 'PASS' : 'MISS';
    const name = row.scale ? `${row.name} @${scaleTag(row.scale)}` : row.name;
    console.log(
      `  ${mark} ${name.padEnd(56)} ${String(row.value).padStart(12)} ${row.unit.padEnd(10)} ${row.target ?? ''}${row.note ? `  (${row.note})` : ''}`,
    );
  },
};

const sections: Record<string, (c: BenchContext) => Promise<void>> = {
  core: coreBench,
  startup: startupBench,
  ui: uiBench,
  files: filesBench,
  sync: syncBench,
  syncfiles: syncFilesBench,
  search: searchBench,
  csv: csvImportBench,
  export: exportBench,
};
// Not in the default run: core measures the same figures at 100k.
const extra: Record<string, (c: BenchContext) => Promise<void>> = { http: httpOnlyBench };
const only = values.only ? values.only.split(',') : Object.keys(sections);
for (const name of only) if (!sections[name] && !extra[name]) throw new Error(`unknown section ${name}`);

const started = new Date();
const loads = [load1()];
console.log(
  `odr-desktop bench — ${started.toISOString()} — node ${process.version}, ${os.cpus().length} CPUs, scales ${scales.map(scaleTag).join(', ')}, load average ${loads[0]}`,
);
for (const name of only) {
  const t0 = performance.now();
  console.log(`\n[${name}] load average ${load1()}`);
  await (sections[name] ?? extra[name])!(ctx);
  loads.push(load1());
  console.log(`  [${name}] took ${fmt((performance.now() - t0) / 1000, 0)} s, load average now ${load1()}`);
}
const info: RunInfo = {
  at: started.toISOString(),
  minutes: (Date.now() - started.getTime()) / 60_000,
  node: process.version,
  cpus: os.cpus().length,
  loads: loads.map(Number),
  scales,
  sections: only,
};
const out = path.join(work, 'results.json');
writeFileSync(out, JSON.stringify({ ...info, records, rows: ctx.rows }, null, 2));
const missed = ctx.rows.filter((r) => r.pass === false);
const passed = ctx.rows.filter((r) => r.pass === true);
console.log(
  `\n${ctx.rows.length} figures in ${fmt(info.minutes, 1)} min (load average ${Math.min(...info.loads)}–${Math.max(...info.loads)}):`,
);
console.log(`  ${passed.length} target(s) PASS, ${missed.length} MISS${missed.length ? ':' : ''}`);
for (const r of missed) console.log(`  MISS ${r.name}${r.scale ? ` @${scaleTag(r.scale)}` : ''}: ${r.value} ${r.unit}, target ${r.target}`);
console.log(`written to ${path.relative(process.cwd(), out)}`);
if (values.readme) {
  const file = path.join(BENCH_DIR, '..', 'README.md');
  writeReadme(file, info, ctx.rows);
  console.log(`README.md performance table updated`);
}
