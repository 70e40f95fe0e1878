import { randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readdirSync, rmSync, statSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { rename } from 'node:fs/promises';
import path from 'node:path';
import Papa from 'papaparse';
import yazl from 'yazl';
import { isPublicAt } from '../../../../shared/dates.js';
import { renderValue } from '../../../../shared/fieldTypes.js';
import type { ExportRequest, ExportResult } from '../../../../shared/schemas/view.js';
import { exportCellsRepository, type CellFileRow } from '../../store/exportCells.js';
import type { Domain } from '../domain.js';
import { badRequest } from '../errors.js';
import type { BlobStore } from '../files/blobStore.js';
import type { JobReporter } from '../jobRunner.js';
import { isAdmin } from '../permissions.js';
import type { RecordRow } from '../../store/rows.js';
import type { DatatypeInfo, FieldInfo } from '../schemaCache.js';
import type { User } from '../users.js';
import { parseFilters } from '../search/viewFilters.js';

// Export of the record list's current view (its search, filters, sort and columns) as a file the
// user downloads: CSV of the chosen columns, or JSON in the ODR record-list shape the importer
// reads back; optionally a zip that adds the records' files. Runs as a tracked job, in batches
// that yield to the event loop, so the service keeps answering while it runs.

const BATCH = 1000;
const JSON_BATCH = 200;
/** Exports are kept for a day, then removed when the next export starts. */
const KEEP_MS = 24 * 3600 * 1000;

export const exportsDir = (d: Domain) => path.join(d.ctx.dataDir, 'exports');

export interface ExportPlan {
  dt: DatatypeInfo;
  rows: RecordRow[];
  /** CSV columns after uuid, id and name. */
  fields: FieldInfo[];
  req: ExportRequest;
  file: string;
}

/** Checks the request and fixes the records (the view as it is now) before the job starts. */
export function planExport(d: Domain, user: User, dt: DatatypeInfo, req: ExportRequest): ExportPlan {
  const fields = req.columns
    .filter((k) => k !== '_id')
    .map((k, i) => {
      const f = dt.fieldsByUuid.get(k);
      if (!f) throw badRequest(`columns[${i}]: ${k} is not a field of dataset ${dt.uuid}`);
      return f;
    });
  // The same checks and terms as the list: a saved or typed view exports what the list shows.
  const filters = parseFilters(JSON.stringify(req.view.filters ?? []));
  const { rows } = d.table.query(user, dt, { ...req.view, filters, offset: 0, limit: Number.MAX_SAFE_INTEGER });
  const ext = req.files ? 'zip' : req.format;
  return { dt, rows, fields, req, file: `export-${randomUUID()}.${ext}` };
}

async function write(out: WriteStream, chunk: string | Buffer): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

async function close(out: WriteStream): Promise<void> {
  out.end();
  await once(out, 'finish');
}

/** Cell text as the record JSON shows it: values, option/tag names joined, file names. */
function csvBatch(d: Domain, user: User, now: string, p: ExportPlan, batch: RecordRow[], filesOut: CellFileRow[]): string[][] {
  const repo = exportCellsRepository(d.ctx.db);
  const admin = isAdmin(user, p.dt);
  const textFields = p.dt.fields.filter((f) => f.type.storage === 'text');
  const nameField = p.dt.nameFieldId;
  const want = new Set<number>([...p.fields.map((f) => f.id), ...textFields.map((f) => f.id), ...(nameField === null ? [] : [nameField])]);
  const rids = batch.map((r) => r.rid);
  const byStorage = (s: string) => p.fields.filter((f) => f.type.storage === s).map((f) => f.id);
  const cells = new Map<number, Map<number, string>>();
  const put = (rid: number, field: number, text: string, join = false) => {
    let m = cells.get(rid);
    if (!m) cells.set(rid, (m = new Map()));
    const had = m.get(field);
    m.set(field, join && had ? `${had}; ${text}` : text);
  };
  const schema = d.schema();
  for (const v of repo.values(rids, [...want])) {
    const f = schema.fields.get(v.datafield_id)!;
    if (f.type.storage === 'boolean') put(v.record_rid, f.id, v.value === 1 || v.value === '1' ? '1' : '0');
    else if (!['options', 'tags', 'files'].includes(f.type.storage)) put(v.record_rid, f.id, String(renderValue(f.type, v.value) ?? ''));
  }
  for (const o of repo.options(rids, byStorage('options'))) put(o.record_rid, o.datafield_id, o.name, true);
  for (const t of repo.tags(rids, byStorage('tags'))) put(t.record_rid, t.datafield_id, t.name, true);
  const byRid = new Map(batch.map((r) => [r.rid, r]));
  for (const f of repo.files(rids, byStorage('files'))) {
    const rec = byRid.get(f.record_rid)!;
    if (!admin && f.created_by !== user.id && rec.created_by !== user.id && !isPublicAt(f.public_date, now)) continue;
    put(f.record_rid, f.datafield_id, f.original_name, true);
    filesOut.push(f);
  }
  return batch.map((r) => {
    const m = cells.get(r.rid);
    // A non-public field's value only for its dataset's admins and the record's creator, as in record reads.
    const seen = (f: FieldInfo) => admin || r.created_by === user.id || isPublicAt(f.publicDate, now);
    const cell = (f: FieldInfo) => (seen(f) ? (m?.get(f.id) ?? '') : '');
    let name = nameField !== null ? cell(schema.fields.get(nameField)!) : '';
    if (!name)
      name =
        textFields
          .map((f) => cell(f).trim())
          .find(Boolean)
          ?.slice(0, 120) ?? '';
    return [r.uuid, String(r.internal_id), name || `#${r.internal_id}`, ...p.fields.map(cell)];
  });
}

/** Every original file of the exported records' file and image fields (for the zip of a JSON export). */
function filesOf(d: Domain, user: User, now: string, p: ExportPlan, batch: RecordRow[]): CellFileRow[] {
  const ids = p.dt.fields.filter((f) => f.type.storage === 'files').map((f) => f.id);
  const admin = isAdmin(user, p.dt);
  const byRid = new Map(batch.map((r) => [r.rid, r]));
  return exportCellsRepository(d.ctx.db)
    .files(
      batch.map((r) => r.rid),
      ids,
    )
    .filter((f) => admin || f.created_by === user.id || byRid.get(f.record_rid)!.created_by === user.id || isPublicAt(f.public_date, now));
}

/**
 * The files listed batch by batch (the first maybe minutes ago) that are still there and readable
 * by the user as the zip starts: a file made non-public, or of a record deleted or hidden from the
 * user since its batch, is not zipped.
 */
async function stillReadable(d: Domain, user: User, p: ExportPlan, files: CellFileRow[]): Promise<CellFileRow[]> {
  const records = [...new Set(files.map((f) => f.record_rid))];
  const uuidOf = new Map(p.rows.map((r) => [r.rid, r.uuid]));
  // The file read now must still be the one listed (rids are not handed out twice, migration 026,
  // yet this check costs nothing and does not lean on that).
  const same = (f: CellFileRow) => `${f.record_rid}:${f.datafield_id}:${f.content_hash}`;
  const listed = new Map(files.map((f) => [f.rid, same(f)]));
  const readable = new Set<number>();
  for (let i = 0; i < records.length; i += BATCH) {
    const batch = records.slice(i, i + BATCH);
    const { viewer, now, rows } = d.lists.readableNow(
      user,
      batch,
      batch.map((rid) => uuidOf.get(rid)!),
    );
    for (const f of filesOf(d, viewer, now, p, rows)) if (listed.get(f.rid) === same(f)) readable.add(f.rid);
    // A 100k-record export with files is ~100 such reads: the service answers between them.
    await tick();
  }
  return files.filter((f) => readable.has(f.rid));
}

function removeOld(dir: string, now: number) {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    try {
      if (now - statSync(file).mtimeMs > KEEP_MS) rmSync(file, { force: true });
    } catch {
      // gone already
    }
  }
}

/** Writes the export; progress counts records written (and files zipped). */
export async function runExport(
  d: Domain,
  blobs: BlobStore,
  user: User,
  p: ExportPlan,
  r: JobReporter,
  apiBase: string,
): Promise<ExportResult | undefined> {
  const dir = exportsDir(d);
  mkdirSync(dir, { recursive: true });
  removeOld(dir, Date.now());
  const final = path.join(dir, p.file);
  const body = path.join(dir, `${p.file}.${p.req.format}.part`);
  const out = createWriteStream(body);
  const files: CellFileRow[] = [];
  const total = p.rows.length;
  /** Records written: those of the plan still there and readable by the user when their batch was read. */
  let written = 0;
  // The plan fixed which records; each batch is read again and judged with the user's rights
  // and the clock of that batch (the job yields between batches, and runs for minutes on a large
  // dataset): a record deleted or hidden from the user meanwhile is left out and not counted.
  const batchOf = (i: number, size: number) => {
    const picked = p.rows.slice(i, i + size);
    return d.lists.readableNow(
      user,
      picked.map((x) => x.rid),
      picked.map((x) => x.uuid),
    );
  };
  let cancelled = false;
  try {
    if (p.req.format === 'csv') {
      const header = ['record_uuid', 'internal_id', 'name', ...p.fields.map((f) => f.name)];
      await write(out, `\uFEFF${Papa.unparse([header])}\r\n`);
      for (let i = 0; i < total && !cancelled; i += BATCH) {
        const { viewer, now, rows } = batchOf(i, BATCH);
        if (rows.length) await write(out, `${Papa.unparse(csvBatch(d, viewer, now, p, rows, files), { header: false })}\r\n`);
        written += rows.length;
        cancelled = !r.progress(Math.min(total, i + BATCH));
        await tick();
      }
    } else {
      // `count` last: it is known only once every batch was read (the importer reads it by key).
      await write(out, '{"records":[');
      for (let i = 0; i < total && !cancelled; i += JSON_BATCH) {
        const { viewer, now, rows } = batchOf(i, JSON_BATCH);
        if (rows.length) {
          const parts = d.renderTopsJson(rows, { viewer, now, apiBase });
          await write(out, (written ? ',' : '') + parts.map((b) => b.toString('utf8')).join(','));
          if (p.req.files) files.push(...filesOf(d, viewer, now, p, rows));
        }
        written += rows.length;
        cancelled = !r.progress(Math.min(total, i + JSON_BATCH));
        await tick();
      }
      await write(out, `],"count":${written}}`);
    }
    await close(out);
    if (cancelled) return undefined;
    let missing = 0;
    let zipped: CellFileRow[] = [];
    if (p.req.files) {
      zipped = await stillReadable(d, user, p, files);
      missing = await zip(blobs, body, `records.${p.req.format}`, final, zipped, p.rows, r, total);
      rmSync(body, { force: true });
    } else {
      await rename(body, final);
    }
    return {
      file: p.file,
      bytes: statSync(final).size,
      records: written,
      files: p.req.files ? zipped.length - missing : 0,
      missing,
      // No extension in the path: the app strips a `.json` suffix from every path, as the real server does.
      download: `/local/exports/${p.file.replace(/\.\w+$/, '').replace(/^export-/, '')}`,
    };
  } finally {
    if (!out.closed) out.destroy();
    rmSync(body, { force: true });
    if (cancelled) rmSync(final, { force: true });
  }
}

/** The export and the files' bytes, streamed into a zip; files not on this computer are listed in missing-files.txt. */
async function zip(
  blobs: BlobStore,
  body: string,
  bodyName: string,
  final: string,
  files: CellFileRow[],
  rows: RecordRow[],
  r: JobReporter,
  done: number,
): Promise<number> {
  const z = new yazl.ZipFile();
  const out = createWriteStream(`${final}.part`);
  z.outputStream.pipe(out);
  z.addFile(body, bodyName);
  const idOf = new Map(rows.map((x) => [x.rid, x.internal_id]));
  const used = new Set<string>();
  const missing: string[] = [];
  r.progress(done, done + files.length);
  for (const [i, f] of files.entries()) {
    // Record id and file rid keep equal names of different files apart.
    let name = `files/${idOf.get(f.record_rid)}/${f.original_name.replace(/[\\/]/g, '_') || 'file'}`;
    if (used.has(name)) name = `files/${idOf.get(f.record_rid)}/${f.rid}-${f.original_name.replace(/[\\/]/g, '_')}`;
    used.add(name);
    if (f.content_hash === null) missing.push(`${name}\tnot on this computer (the export it was imported from held metadata only)`);
    else if (!existsSync(blobs.pathOf(f.content_hash))) missing.push(`${name}\tits bytes are missing from the data folder`);
    else z.addFile(blobs.pathOf(f.content_hash), name, { compress: false });
    r.progress(done + i + 1);
  }
  if (missing.length) z.addBuffer(Buffer.from(`${missing.join('\n')}\n`), 'missing-files.txt');
  z.end();
  await once(out, 'close');
  await rename(`${final}.part`, final);
  return missing.length;
}
