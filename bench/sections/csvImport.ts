import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createService } from '../../electron/service/service.js';
import { importTemplate } from '../../electron/service/domain/import/importFile.js';
import { importCsv, openCsv } from '../../electron/service/domain/import/csvImport.js';
import { SYNTH, syntheticTemplate } from '../synthetic.js';
import { fmt, freshDir, type BenchContext } from '../util.js';

/** Nine columns named as the synthetic template's fields: Sample ID and one of each kind. */
export const CSV_HEADER =
  'Sample ID,Integer field,Decimal field,Boolean field,DateTime field,Single Radio field,Multiple Select field,Tags field,Medium Text field';

/** `n` CSV rows over nine fields of every kind; one row in 500 has a bad integer. */
export function writeCsv(file: string, n: number): number {
  const lines = [CSV_HEADER];
  let bad = 0;
  for (let i = 0; i < n; i++) {
    if (i % 500 === 7) {
      bad++;
      lines.push(`CSV-${i},${i}.5,,,,,,,`);
      continue;
    }
    lines.push(
      `CSV-${i},${i},${(i / 7).toFixed(3)},${i % 2},2020-01-${String(1 + (i % 28)).padStart(2, '0')},Single Radio option ${1 + (i % 3)},` +
        `Multiple Select option ${1 + (i % 5)};Multiple Select option 2,Group ${1 + (i % 3)} item 1,"row ${i}, imported"`,
    );
  }
  writeFileSync(file, lines.join('\n'));
  return bad;
}

/** Issue 14's CSV target: rows per second through the import job's code path (parse, check, write). */
export async function csvImportBench(ctx: BenchContext): Promise<void> {
  const n = Math.min(ctx.records, 50_000);
  const service = await createService({
    dataDir: freshDir(ctx, 'data-csv'),
    admin: { email: 'bench@localhost', password: 'bench-password' },
  });
  const user = service.domain.users.firstSuperUser()!;
  importTemplate(service.domain, user, syntheticTemplate(), {});
  const file = path.join(ctx.work, `rows-${n}.csv`);
  const bad = writeCsv(file, n);
  const plan = await openCsv(service.domain, user, file, SYNTH.dataset);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await importCsv(service.domain, user, plan, () => true);
  const secs = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  if (r.imported !== n - bad || r.failed_rows !== bad) throw new Error(`CSV bench: imported ${r.imported}, refused ${r.failed_rows}`);
  const rate = n / secs;
  ctx.add({
    section: 'csv',
    name: `CSV import, ${n} rows × 9 fields (1 in 500 refused), rows/s`,
    value: Math.round(rate),
    unit: 'rows/s',
    target: '≥ 10,000',
    pass: rate >= 10_000,
    note: `${fmt(secs, 2)} s wall, ${fmt((cpu.user + cpu.system) / 1e6, 2)} s CPU = ${Math.round(n / ((cpu.user + cpu.system) / 1e6))} rows per CPU second`,
  });
  await service.close();
}
