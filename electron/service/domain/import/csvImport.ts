import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import Papa from 'papaparse';
import { PRIVATE_DATE } from '../../../../shared/dates.js';
import type { CsvImportResult, CsvMapping, CsvPreview, CsvRowFailure } from '../../../../shared/schemas/csvImport.js';
import type { Domain } from '../domain.js';
import { badRequest, forbidden } from '../errors.js';
import { editsAll } from '../permissions.js';
import { newUuid } from '../ids.js';
import { emptyBatch, newRecordsStore, type NewRecordsBatch } from '../../store/newRecords.js';
import type { DatatypeInfo } from '../schemaCache.js';
import { tx } from '../tx.js';
import type { User } from '../users.js';
import { transaction } from '../../store/tx.js';
import { withBulkIndexes } from './bulkIndexes.js';
import {
  choicesOf,
  columnNames,
  converterFor,
  importableFields,
  resolveColumns,
  type CellWrite,
  type ResolvedColumns,
} from './csvFields.js';
import { WHO } from '../rights.js';
import { editorNow, RightLost } from './writeRights.js';

// CSV rows become new top-level records of one dataset. The file is streamed (papaparse's
// Node stream mode), never held whole; every row is converted and checked (the value endpoint's
// checkValue) before anything is written, so a bad row is reported (row, column, message) and
// never reaches the database, while the good ones go in batches, one transaction each.

const PREVIEW_ROWS = 20;
const MAX_LISTED_FAILURES = 10_000;
const BATCH_ROWS = 2000;
const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

/** Who may import rows into a dataset: those who may edit all its records (admins, the edit role). */
export const mayImportInto = (user: User, dt: DatatypeInfo) => editsAll(user, dt);

export interface CsvPlan {
  file: string;
  size: number;
  /** Line breaks in the file: an upper bound of its rows, to weigh a bulk import before reading them. */
  lines: number;
  dt: DatatypeInfo;
  names: string[];
  resolved: ResolvedColumns;
}

/** File-level checks, before any row is read: empty, not text, not UTF-8. Its size and line count. */
async function checkText(file: string): Promise<{ size: number; lines: number }> {
  const size = (await stat(file)).size;
  if (size === 0) throw badRequest('The CSV file is empty');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  let lines = 1;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    if (offset === 0 && chunk.length >= 2 && ((chunk[0] === 0xff && chunk[1] === 0xfe) || (chunk[0] === 0xfe && chunk[1] === 0xff))) {
      throw badRequest('The CSV file is UTF-16 text; save it as UTF-8 ("CSV UTF-8" in spreadsheet programs)');
    }
    const nul = chunk.indexOf(0);
    if (nul >= 0) throw badRequest(`Not a CSV file: it holds binary data (a NUL byte at byte ${offset + nul})`);
    try {
      decoder.decode(chunk, { stream: true });
    } catch {
      const text = new TextDecoder('utf-8').decode(chunk);
      const bad = text.indexOf('\uFFFD');
      const line = lines + (text.slice(0, Math.max(0, bad)).match(/\n/g)?.length ?? 0);
      throw badRequest(`The CSV file is not UTF-8 text (an invalid byte on line ${line}); save it as UTF-8 ("CSV UTF-8")`);
    }
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
    offset += chunk.length;
  }
  try {
    decoder.decode();
  } catch {
    throw badRequest('The CSV file is not UTF-8 text (it ends inside a character); save it as UTF-8');
  }
  return { size, lines };
}

/**
 * The file's records as arrays of cells, in order; blank lines come through as `[""]` so row
 * numbers stay those a spreadsheet shows. `read.bytes` follows how far the file has been read.
 */
async function* csvRecords(file: string, read = { bytes: 0 }): AsyncGenerator<string[]> {
  const input = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 18 });
  input.on('data', () => {
    read.bytes = input.bytesRead;
  });
  const parser = Papa.parse(Papa.NODE_STREAM_INPUT, { delimiter: '', skipEmptyLines: false }) as NodeJS.ReadWriteStream;
  input.on('error', (e) => parser.emit('error', e));
  input.pipe(parser);
  let first = true;
  try {
    for await (const row of parser as AsyncIterable<string[]>) {
      if (first && row.length && row[0]!.startsWith('\uFEFF')) row[0] = row[0]!.slice(1);
      first = false;
      yield row;
    }
  } finally {
    input.destroy();
    (parser as unknown as { destroy: () => void }).destroy();
  }
}

const isBlank = (row: string[]) => row.length === 1 && row[0]!.trim() === '';

/**
 * Opens a CSV for import into `datasetUuid`: the dataset and the caller's right first, then the
 * file (UTF-8, a header, at least one row) and the column mapping. Every problem is a 4xx
 * before anything is written.
 */
export async function openCsv(d: Domain, user: User, file: string, datasetUuid: string, mapping?: CsvMapping): Promise<CsvPlan> {
  const dt = d.datatype(datasetUuid, 'Dataset');
  if (dt.parentId !== null) throw badRequest(`${datasetUuid} is a child dataset: rows are imported into a top-level dataset`);
  if (!mayImportInto(user, dt)) throw forbidden(`You may not import records into dataset ${datasetUuid}: only ${WHO.editsAll} can.`);
  const { size, lines } = await checkText(file);
  let header: string[] | null = null;
  let hasRow = false;
  for await (const row of csvRecords(file)) {
    if (!header) {
      if (isBlank(row)) throw badRequest('Not a CSV file: the first line (the header naming the columns) is blank');
      header = row;
    } else if (!isBlank(row)) {
      hasRow = true;
      break;
    }
  }
  if (!header) throw badRequest('The CSV file is empty');
  const names = columnNames(header);
  const resolved = resolveColumns(dt, names, mapping);
  if (!resolved.targets.some(Boolean)) {
    throw badRequest(
      `None of the CSV's columns (${names.slice(0, 10).join(', ')}${names.length > 10 ? ', …' : ''}) matches a field of dataset "${dt.name}"; map them to fields`,
    );
  }
  if (!hasRow) throw badRequest('The CSV file has a header but no rows');
  return { file, size, lines, dt, names, resolved };
}

interface RowOutcome {
  writes: CellWrite[];
  failures: CsvRowFailure[];
}

/** Each data row, converted: its writes, or why it is refused. `row` 2 is the first data row. */
async function* convertedRows(plan: CsvPlan, read: { bytes: number }): AsyncGenerator<{ row: number; cells: string[] } & RowOutcome> {
  const converters = plan.resolved.targets.map((f) => (f ? converterFor(f) : null));
  const width = plan.names.length;
  let n = 0;
  for await (const cells of csvRecords(plan.file, read)) {
    n++;
    if (n === 1 || isBlank(cells)) continue; // the header; blank lines
    const failures: CsvRowFailure[] = [];
    const writes: CellWrite[] = [];
    if (cells.length !== width) {
      failures.push({ row: n, column: null, message: `the row has ${cells.length} column(s), the header ${width}` });
    } else {
      for (let i = 0; i < width; i++) {
        const conv = converters[i];
        if (!conv) continue;
        const out = conv(cells[i]!);
        if (out === null) continue;
        if ('error' in out) failures.push({ row: n, column: plan.names[i]!, message: out.error });
        else writes.push(out.write);
      }
    }
    yield { row: n, cells, writes, failures };
  }
}

class FailureList {
  readonly list: CsvRowFailure[] = [];
  rows = 0;
  truncated = false;
  add(f: CsvRowFailure[]): void {
    if (!f.length) return;
    this.rows++;
    for (const x of f) {
      if (this.list.length < MAX_LISTED_FAILURES) this.list.push(x);
      else this.truncated = true;
    }
  }
}

/** What the dialog shows before importing: the mapping, the first rows and every row that would fail. */
export async function previewCsv(plan: CsvPlan): Promise<CsvPreview> {
  const rows: string[][] = [];
  const failures = new FailureList();
  let total = 0;
  for await (const r of convertedRows(plan, { bytes: 0 })) {
    total++;
    if (rows.length < PREVIEW_ROWS) rows.push(r.cells);
    failures.add(r.failures);
  }
  return {
    dataset: plan.dt.uuid,
    columns: plan.resolved.columns,
    fields: importableFields(plan.dt).map((f) => ({
      field_uuid: f.uuid,
      name: f.name,
      fieldtype: f.fieldtype,
      ...(choicesOf(f) ? { choices: choicesOf(f) } : {}),
    })),
    rows,
    total,
    failed_rows: failures.rows,
    failures: failures.list,
    failures_truncated: failures.truncated,
  };
}

interface RowTarget {
  dt: DatatypeInfo;
  user: User;
  at: string;
  publicDate: string;
  /** Default options of the dataset's option fields, selected when a row leaves the field empty. */
  defaults: [fieldId: number, optionIds: number[]][];
}

/** One row as a new record, added to `out`: its values and selections, logged as an import. */
function addRow(d: Domain, t: RowTarget, rid: number, internalId: number, writes: CellWrite[], out: NewRecordsBatch): string {
  const uuid = newUuid();
  const auth = t.user.display;
  out.records.push({
    rid,
    internalId,
    uuid,
    datatypeId: t.dt.id,
    createdBy: t.user.id,
    created: t.at,
    createAuth: auth,
    publicDate: t.publicDate,
  });
  const given = new Set<number>();
  for (const c of writes) {
    given.add(c.field.id);
    if (c.kind === 'value') {
      out.value(rid, c.field.id, c.stored, t.at, auth);
      continue;
    }
    out.value(rid, c.field.id, null, t.at, auth);
    for (const id of c.ids) (c.kind === 'options' ? out.option : out.tag)(rid, id, c.field.id, t.at);
  }
  for (const [fieldId, options] of t.defaults) {
    if (!given.has(fieldId)) for (const id of options) out.option(rid, id, fieldId, t.at);
  }
  // Like every import (the ODR-export importer too): one log entry per record, which the search
  // index and the rendered-record cache follow; sync does not push imports.
  d.log.append(t.at, {
    op: 'record.import',
    userId: t.user.id,
    datasetUuid: t.dt.uuid,
    recordUuid: uuid,
    topRecordUuid: uuid,
    new: { from: 'csv' },
  });
  return uuid;
}

/** Rows as new records in the open transaction; returns their uuids. */
function writeRows(d: Domain, t: RowTarget, items: { writes: CellWrite[] }[]): string[] {
  const repo = newRecordsStore(d.ctx.db);
  const ids = repo.nextIds();
  const out = emptyBatch();
  const uuids = items.map((item, i) => addRow(d, t, ids.rid + i, ids.internal_id + i, item.writes, out));
  repo.write(out);
  return uuids;
}

/**
 * Imports the rows as new records (the caller's, private unless the dataset makes new records
 * public). `progress(fraction)` returns false to stop; rows already written stay. Each batch
 * needs the right to import as the user holds it then: once it is gone the import stops with a
 * RightLost naming what changed and how many rows were written.
 */
export async function importCsv(d: Domain, user: User, plan: CsvPlan, progress: (fraction: number) => boolean): Promise<CsvImportResult> {
  const started = performance.now();
  const release = d.search.hold();
  const read = { bytes: 0 };
  const failures = new FailureList();
  let total = 0;
  let imported = 0;
  let batch: { row: number; writes: CellWrite[] }[] = [];
  /** The user as of the last batch: read again before each one, which needs the right to import. */
  let writer = user;
  const flush = () => {
    const items = batch;
    batch = [];
    const at = d.now();
    const dt = d.schema().datatypes.get(plan.dt.id);
    const written = `${imported} row${imported === 1 ? ' was' : 's were'} written`;
    if (!dt) throw new RightLost(`Stopped: dataset ${plan.dt.uuid} was deleted during the import; ${written}, the rest were not`);
    writer = editorNow(d, writer, dt, written);
    const target: RowTarget = {
      dt,
      user: writer,
      at,
      publicDate: dt.newRecordsPublic ? at : PRIVATE_DATE,
      defaults: dt.fields
        .map((f) => [f.id, f.options.filter((o) => o.isDefault).map((o) => o.id)] as [number, number[]])
        .filter((x) => x[1].length),
    };
    let uuids: string[];
    try {
      // Rows were checked before: the whole batch normally goes in one transaction.
      uuids = tx(d.ctx, () => writeRows(d, target, items));
    } catch {
      // Something failed while writing: again row by row, each in its own savepoint, so the
      // row that fails is reported and leaves nothing behind while the others go in.
      uuids = tx(d.ctx, () =>
        items.flatMap((item) => {
          try {
            return transaction(d.ctx.db, () => writeRows(d, target, [item]));
          } catch (e) {
            failures.add([{ row: item.row, column: null, message: (e as Error).message }]);
            return [];
          }
        }),
      );
    }
    imported += uuids.length;
    if (uuids.length) d.ctx.events.emit('records', { datasetUuid: dt.uuid, recordUuids: uuids });
  };
  try {
    // The header line is no row; a large file builds the value indexes once, at its end.
    await withBulkIndexes(d, plan.lines - 1, async () => {
      for await (const r of convertedRows(plan, read)) {
        total++;
        if (r.failures.length) failures.add(r.failures);
        else batch.push({ row: r.row, writes: r.writes });
        if (batch.length >= BATCH_ROWS) {
          flush();
          if (!progress(Math.min(0.99, read.bytes / plan.size))) throw new Error('cancelled');
          await yieldToLoop();
        }
      }
      if (batch.length) flush();
    });
  } finally {
    release();
  }
  progress(1);
  return {
    kind: 'csv',
    dataset: plan.dt.uuid,
    total,
    imported,
    failed_rows: failures.rows,
    failures: failures.list,
    failures_truncated: failures.truncated,
    seconds: +((performance.now() - started) / 1000).toFixed(3),
  };
}
