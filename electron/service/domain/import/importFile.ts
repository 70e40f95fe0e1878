import { jsonDepth, MAX_JSON_DEPTH, tooDeepMessage } from '../../../../shared/jsonDepth.js';
import { readFile, stat } from 'node:fs/promises';
import { normalizeTemplate, ShapeError } from '../../../../shared/legacy.js';
import type { Domain } from '../domain.js';
import { tx } from '../tx.js';
import type { User } from '../users.js';
import { TemplateWriter } from './importTemplate.js';
import { RecordImporter } from './importRecords.js';
import { ExportFormatError, jsonArrayElements } from './jsonElements.js';
import { withBulkIndexes } from './bulkIndexes.js';
import { RightLost } from './writeRights.js';
import { forbidden } from '../errors.js';
import { isAdmin } from '../permissions.js';
import { WHO } from '../rights.js';

export class ImportError extends Error {}

export interface ImportOptions {
  /** Overwrite records whose uuid is already stored (default: keep them, count them as skipped). */
  replace?: boolean;
  /** Import a template export as a master template (listed by /search/templates). */
  master?: boolean;
  /** Fraction done in 0..1, called between batches. */
  onProgress?: (fraction: number, detail: string) => void;
  batchSize?: number;
  /** About how many records are coming (a generator's count, a file's size guess): large imports defer the value indexes. */
  expectedRecords?: number;
  /**
   * Radio option ids to give back, by field uuid then option uuid: ODR template exports carry
   * none, so a dataset put back from the trash would otherwise keep only the ids of options a
   * record selects (scripts address options by id).
   */
  optionIds?: OptionIds;
}

/** field uuid → option uuid → option id. */
export type OptionIds = Record<string, Record<string, number>>;

export interface ImportSummary {
  kind: 'template' | 'records';
  datasets: { uuid: string; name: string; records: number }[];
  records: { imported: number; skipped: number; children: number };
  files: number;
  fields: number;
}

/** Files above this size are streamed record by record instead of parsed whole. */
const WHOLE_PARSE_LIMIT = 64 * 1024 * 1024;
/** A guess at the bytes per record of an export, small on purpose (synthetic records take ~1.6 KB). */
const BYTES_PER_RECORD_GUESS = 2048;

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

async function* inMemory(list: unknown[], read: { done: number }): AsyncGenerator<unknown> {
  for (const r of list) {
    read.done++;
    yield r;
  }
}

/**
 * Imports an ODR export: a template (current or legacy shape, with nested related databases)
 * or a record list `{count, records}`. Records are written in batches, one transaction each,
 * and matched by uuid, so an interrupted import can simply be run again.
 */
export async function importFile(d: Domain, user: User, file: string, opts: ImportOptions = {}): Promise<ImportSummary> {
  // The search index catches up once the import is done instead of competing with it.
  const release = d.search.hold();
  try {
    return await importAny(d, user, file, opts);
  } finally {
    release();
  }
}

async function importAny(d: Domain, user: User, file: string, opts: ImportOptions): Promise<ImportSummary> {
  const size = (
    await stat(file).catch(() => {
      throw new ImportError(`cannot read ${file}`);
    })
  ).size;
  if (size <= WHOLE_PARSE_LIMIT) {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(file, 'utf8'));
    } catch (e) {
      throw new ImportError(`${file} is not valid JSON: ${(e as Error).message}`);
    }
    // A record list wraps its records two levels deep ({records: [...]}).
    if (jsonDepth(json, MAX_JSON_DEPTH + 2) > MAX_JSON_DEPTH + 2) throw new ImportError(tooDeepMessage(file));
    if (isObj(json) && Array.isArray(json.fields) && typeof json.template_uuid === 'string') {
      return importTemplate(d, user, json, opts);
    }
    const list = Array.isArray(json)
      ? json
      : isObj(json) && Array.isArray(json.records)
        ? json.records
        : isObj(json) && typeof json.record_uuid === 'string'
          ? [json]
          : null;
    if (!list) throw new ImportError(`${file} is neither an ODR template export nor a record list ({count, records})`);
    const read = { done: 0 };
    return importRecords(d, user, inMemory(list, read), () => read.done / Math.max(1, list.length), opts);
  }
  const read = { bytes: 0 };
  return importRecords(d, user, jsonArrayElements(file, 'records', read), () => read.bytes / size, {
    expectedRecords: Math.floor(size / BYTES_PER_RECORD_GUESS),
    ...opts,
  });
}

/** A template object already in memory (the sync engine's pull). */
export function importTemplate(d: Domain, user: User, json: unknown, opts: ImportOptions): ImportSummary {
  if (jsonDepth(json) > MAX_JSON_DEPTH) throw new ImportError(tooDeepMessage('The template export'));
  let t;
  try {
    t = normalizeTemplate(json);
  } catch (e) {
    if (e instanceof ShapeError) throw new ImportError(`template export: ${e.message}`);
    throw e;
  }
  // A template export over a dataset that exists changes its template: its admins' call.
  const schema = d.schema();
  const checkRights = (x: typeof t): void => {
    const dt = schema.datatypesByUuid.get(x.template_uuid);
    if (dt && !isAdmin(user, dt))
      throw forbidden(`You may not change the template of dataset ${dt.top.uuid}: only ${WHO.administers} can.`);
    x.related_databases.forEach(checkRights);
  };
  checkRights(t);
  const writer = new TemplateWriter(d, opts.optionIds);
  let fields = 0;
  const count = (x: typeof t): void => {
    fields += x.fields.length;
    x.related_databases.forEach(count);
  };
  count(t);
  tx(d.ctx, () => {
    writer.datatype(t, null, 0, user, opts.master ?? false);
    d.ctx.schema.changed();
    d.log.append(d.now(), { op: 'template.import', userId: user.id, datasetUuid: t.template_uuid, new: { name: t.name } });
  });
  const datasets: ImportSummary['datasets'] = [];
  const list = (x: typeof t) => {
    datasets.push({ uuid: x.template_uuid, name: x.name, records: 0 });
    x.related_databases.forEach(list);
  };
  list(t);
  opts.onProgress?.(1, `template ${t.name}`);
  return { kind: 'template', datasets, records: { imported: 0, skipped: 0, children: 0 }, files: 0, fields };
}

/**
 * Records produced one at a time (the sample generator): imported in batches like a file, so
 * memory stays flat whatever the count. `fraction` reports how far the source is. A synchronous
 * source is read inside each batch's transaction, so every record is garbage as soon as it is
 * written instead of waiting for its batch (that outlived the young generation: a third of the
 * 100k sample's CPU went to the collector).
 */
export async function importRecordStream(
  d: Domain,
  user: User,
  source: RecordSource,
  fraction: () => number,
  opts: ImportOptions = {},
): Promise<ImportSummary> {
  const release = d.search.hold();
  try {
    return await importRecords(d, user, source, fraction, opts);
  } finally {
    release();
  }
}

/** Record objects already in memory (the sync engine's pull), in batches like a file import. */
export function importRecordObjects(d: Domain, user: User, records: unknown[], opts: ImportOptions = {}): Promise<ImportSummary> {
  const deep = records.findIndex((r) => jsonDepth(r) > MAX_JSON_DEPTH);
  if (deep >= 0) return Promise.reject(new ImportError(tooDeepMessage(`record ${deep + 1} of the list`)));
  const read = { done: 0 };
  return importRecords(d, user, inMemory(records, read), () => read.done / Math.max(1, records.length), opts);
}

/** Where records come from: a file's parser or the sample generator. */
type RecordSource = AsyncIterable<unknown> | Iterable<unknown>;
const isSync = (s: RecordSource): s is Iterable<unknown> => Symbol.iterator in s && !(Symbol.asyncIterator in s);

async function importRecords(
  d: Domain,
  user: User,
  source: RecordSource,
  fraction: () => number,
  opts: ImportOptions,
): Promise<ImportSummary> {
  return withBulkIndexes(d, opts.expectedRecords ?? 0, () => importBatches(d, user, source, fraction, opts));
}

async function importBatches(
  d: Domain,
  user: User,
  source: RecordSource,
  fraction: () => number,
  opts: ImportOptions,
): Promise<ImportSummary> {
  const importer = new RecordImporter(d, user, opts.replace ?? false);
  const types = importer.typesByUuid();
  const batchSize = opts.batchSize ?? 1000;
  let batch: unknown[] = [];
  let seen = 0;
  /** Top-level records of the committed batches: the failing batch's own are rolled back. */
  let kept = { imported: 0, skipped: 0 };
  /** One transaction over `write`; errors name how far the import got. */
  const inTx = (write: () => void) => {
    try {
      tx(d.ctx, () => {
        // Each batch with the user's rights as they are now (writeRights.ts).
        importer.rereadUser();
        write();
      });
    } catch (e) {
      const where = `${kept.imported} imported, ${kept.skipped} already present`;
      if (e instanceof RightLost)
        throw new ImportError(
          `Stopped: ${e.message}; ${kept.imported} records were written (${kept.skipped} already present), the rest were not`,
        );
      if (e instanceof ShapeError) throw new ImportError(`record list: ${e.message} (${where})`);
      throw new ImportError(`import stopped, ${where}: ${(e as Error).message}`);
    }
    kept = { imported: importer.stats.imported, skipped: importer.stats.skipped };
    for (const t of types.keys()) types.delete(t);
    for (const [k, v] of importer.typesByUuid()) types.set(k, v);
  };
  const flush = () => {
    const items = batch;
    batch = [];
    inTx(() => {
      for (const raw of items) importer.importTop(raw, types);
    });
  };
  if (isSync(source)) {
    const it = source[Symbol.iterator]();
    for (let more = true; more;) {
      inTx(() => {
        for (let k = 0; k < batchSize; k++) {
          const next = it.next();
          if (next.done) {
            more = false;
            return;
          }
          seen++;
          importer.importTop(next.value, types);
        }
      });
      if (more) {
        opts.onProgress?.(Math.min(0.99, fraction()), `${seen} records`);
        await yieldToLoop();
      }
    }
  } else {
    try {
      for await (const raw of source) {
        batch.push(raw);
        seen++;
        if (batch.length >= batchSize) {
          flush();
          opts.onProgress?.(Math.min(0.99, fraction()), `${seen} records`);
          await yieldToLoop();
        }
      }
    } catch (e) {
      if (e instanceof ExportFormatError || e instanceof SyntaxError) throw new ImportError(`record list: ${e.message}`);
      throw e;
    }
    if (batch.length) flush();
  }
  tx(d.ctx, () => importer.finish());
  opts.onProgress?.(1, `${seen} records`);
  const schema = d.schema();
  const s = importer.stats;
  return {
    kind: 'records',
    datasets: [...s.datasets].map(([uuid, records]) => ({ uuid, name: schema.datatypesByUuid.get(uuid)?.name ?? uuid, records })),
    records: { imported: s.imported, skipped: s.skipped, children: s.children },
    files: s.files,
    fields: 0,
  };
}
