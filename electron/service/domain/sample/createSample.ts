import type { Domain } from '../domain.js';
import { importRecordStream, importTemplate } from '../import/importFile.js';
import type { JobReporter } from '../jobRunner.js';
import type { User } from '../users.js';
import { SYNTH, syntheticRecord, syntheticTemplate } from './synthetic.js';

/** The largest sample the first-run screen and POST /local/sample generate. */
export const MAX_SAMPLE_RECORDS = 2_000_000;

/** Yields synthetic records 0..n-1 one at a time; `made.done` follows progress. Synchronous: the importer reads it inside its transactions. */
export function* syntheticRecords(n: number, made = { done: 0 }, seed = 1): Generator<unknown> {
  for (let i = 0; i < n; i++) {
    made.done = i + 1;
    yield syntheticRecord(i, seed);
  }
}

/**
 * The first-run "sample dataset": the synthetic template with every ODR field type and `n`
 * records. The records go through the importer's normal path (normalisation, batches, one
 * transaction each) but straight from the generator: no export file, nothing held whole.
 */
export async function createSampleDataset(d: Domain, user: User, n: number, r: JobReporter) {
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_SAMPLE_RECORDS) throw new RangeError(`sample size must be 1..${MAX_SAMPLE_RECORDS}`);
  importTemplate(d, user, syntheticTemplate(), {});
  r.progress(10);
  const made = { done: 0 };
  const summary = await importRecordStream(d, user, syntheticRecords(n, made), () => made.done / n, {
    expectedRecords: n,
    onProgress: (f) => {
      if (!r.progress(10 + Math.floor(f * 990))) throw new Error('cancelled');
    },
  });
  return { dataset: SYNTH.dataset, records: summary.records.imported, children: summary.records.children };
}
