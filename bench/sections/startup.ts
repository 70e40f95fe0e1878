import path from 'node:path';
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { BENCH_DIR, fmt, median, type BenchContext } from '../util.js';

interface Timing {
  load: number;
  open: number;
  firstList: number;
  total: number;
  records: number;
}

function once(dataDir: string): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const p = fork(path.join(BENCH_DIR, 'startup.ts'), [dataDir], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    p.once('message', (m) => resolve(m as Timing));
    p.once('error', reject);
  });
}

/** Issue 6's figure that can be measured here: the service's part of the app's start. */
export async function startupBench(ctx: BenchContext): Promise<void> {
  const dataDir = path.join(ctx.work, 'data-core');
  if (!existsSync(path.join(dataDir, 'odr.sqlite'))) throw new Error('run the core section first (it builds the database)');
  await once(dataDir); // warm the OS file cache the way a second launch is
  const runs: Timing[] = [];
  for (let i = 0; i < 5; i++) runs.push(await once(dataDir));
  const med = (k: keyof Timing) => median(runs.map((r) => r[k]));
  const service = med('open') + med('firstList');
  ctx.add({
    section: 'startup',
    scale: ctx.records,
    name: 'service start: open DB + first dataset list',
    value: +fmt(service, 0),
    unit: 'ms',
    target: '≤ 300 ms',
    pass: service <= 300,
    note: `open ${fmt(med('open'), 0)} ms, first list ${fmt(med('firstList'), 0)} ms, median of 5`,
  });
  ctx.add({
    section: 'startup',
    name: 'service code load (tsx, uncompiled TypeScript)',
    value: +fmt(med('load'), 0),
    unit: 'ms',
    note: 'bundled by esbuild in the app',
  });
}
