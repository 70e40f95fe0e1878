import { rm } from 'node:fs/promises';
import type { Context } from 'hono';
import { CsvMapping } from '../../../../shared/schemas/csvImport.js';
import type { AppEnv } from '../auth.js';
import type { ParsedUpload } from '../upload.js';
import type { Domain } from '../../domain/domain.js';
import { badRequest } from '../../domain/errors.js';
import { importCsv, openCsv, previewCsv, type CsvPlan } from '../../domain/import/csvImport.js';
import { startJob, startOrCleanUp } from '../../domain/jobRunner.js';

// The CSV side of POST /local/import (format=csv) and POST /local/import/preview. Both take the
// same form; every problem with it (dataset, right, file, mapping) is answered before a job
// starts, and the staged file is removed whatever happens.

function mappingOf(raw: string | undefined): CsvMapping | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw badRequest('mapping: not valid JSON (an object of column header → field uuid)');
  }
  const parsed = CsvMapping.safeParse(json);
  if (!parsed.success) throw badRequest('mapping: must be a JSON object of column header → field uuid ("" to skip a column)');
  return parsed.data;
}

/** Opens the uploaded CSV; on any error the staged files are gone before it propagates. */
async function planOf(c: Context<AppEnv>, d: Domain, upload: ParsedUpload): Promise<CsvPlan> {
  try {
    const part = upload.files[0];
    if (!part) throw badRequest('Attach the CSV as a file part named "file"');
    if (upload.files.length > 1) throw badRequest('Attach one CSV file');
    const dataset = upload.fields.dataset;
    if (!dataset) throw badRequest('"dataset" (the uuid of the dataset to import into) is required');
    return await openCsv(d, c.get('user'), part.staged.tmp, dataset, mappingOf(upload.fields.mapping));
  } catch (e) {
    await upload.discard();
    throw e;
  }
}

export async function csvPreview(c: Context<AppEnv>, d: Domain, upload: ParsedUpload) {
  const plan = await planOf(c, d, upload);
  try {
    return c.json(await previewCsv(plan));
  } finally {
    await rm(plan.file, { force: true });
  }
}

export async function csvImportJob(c: Context<AppEnv>, d: Domain, upload: ParsedUpload) {
  const plan = await planOf(c, d, upload);
  const user = c.get('user');
  const job = await startOrCleanUp(
    () => rm(plan.file, { force: true }),
    () =>
      startJob(d, user, { type: 'import_csv', target: plan.dt.name, total: 1000 }, async (r) => {
        try {
          return await importCsv(d, user, plan, (f) => r.progress(Math.floor(f * 1000)));
        } finally {
          await rm(plan.file, { force: true });
        }
      }),
  );
  return c.json(job, 202);
}
