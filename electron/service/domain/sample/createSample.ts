import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Domain } from '../domain.js';
import { importFile } from '../import/importFile.js';
import type { JobReporter } from '../jobRunner.js';
import type { User } from '../users.js';
import { SYNTH, syntheticTemplate, writeSyntheticExport } from './synthetic.js';

/**
 * The first-run "sample dataset": the synthetic template with every ODR field type and `n`
 * records, written as an export and imported like any other (so it exercises the real path).
 */
export async function createSampleDataset(d: Domain, user: User, n: number, r: JobReporter) {
  const dir = path.join(d.ctx.dataDir, 'files', 'tmp');
  const tpl = path.join(dir, `sample-template-${Date.now()}.json`);
  const recs = path.join(dir, `sample-records-${Date.now()}.json`);
  try {
    await writeFile(tpl, JSON.stringify(syntheticTemplate()));
    await importFile(d, user, tpl);
    r.progress(50);
    await writeSyntheticExport(recs, n);
    r.progress(200);
    const summary = await importFile(d, user, recs, { onProgress: (f) => { if (!r.progress(200 + Math.floor(f * 800))) throw new Error('cancelled'); } });
    return { dataset: SYNTH.dataset, records: summary.records.imported };
  } finally {
    await rm(tpl, { force: true });
    await rm(recs, { force: true });
  }
}
