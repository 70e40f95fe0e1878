import type { OdrRecord } from '../../../shared/schemas/record.js';
import type { Ctx } from './context.js';
import { isAdmin } from './permissions.js';
import type { RecordReader, RenderOptions, RenderTrace } from './recordReader.js';
import type { RecordRow } from '../store/rows.js';
import type { Schema } from './schemaCache.js';
import type { User } from './users.js';

// Rendered record JSON (bytes), per record and per visibility class of the viewer. A render
// depends on the stored rows, the schema, and the viewer only through: administering the
// record's dataset (sees everything), having created something in the tree (sees it), and the
// time (what is public yet). So one render serves every admin of the dataset, and another every
// other viewer who created nothing in the tree, until the tree's next public-date boundary.
//
// Kept true by: every mutation appends to the change log in its own transaction, and
// ChangeLog.append drops the record tree's entries (or everything, for changes without a
// record); entries remember the schema object they were rendered with (template changes
// replace it); another connection's commit (PRAGMA data_version) drops everything; nothing is
// read or kept while this connection is inside a transaction (uncommitted, maybe rolled back).

export type ViewClass = 'admin' | 'public';

interface Entry {
  key: string;
  topUuid: string;
  bytes: Buffer;
  schema: Schema;
  cls: ViewClass;
  trace: RenderTrace;
}

export const DEFAULT_BUDGET_BYTES = 48 * 2 ** 20;
const COMMA = Buffer.from(',');

/** `prefix` + the parts joined by commas + `suffix`, e.g. a JSON array of rendered records. */
export function joinJson(prefix: string, parts: readonly Buffer[], suffix: string): Buffer {
  const out: Buffer[] = [Buffer.from(prefix)];
  parts.forEach((p, i) => {
    if (i) out.push(COMMA);
    out.push(p);
  });
  out.push(Buffer.from(suffix));
  return Buffer.concat(out);
}

export class RenderCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byTop = new Map<string, Set<string>>();
  private bytes = 0;
  private dataVersion = -1;
  hits = 0;
  misses = 0;

  constructor(
    private readonly ctx: Ctx,
    private readonly budgetBytes = DEFAULT_BUDGET_BYTES,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** A change to a record tree (called by the change log, inside the mutation's transaction). */
  dropTop(topUuid: string): void {
    const keys = this.byTop.get(topUuid);
    if (!keys) return;
    for (const k of keys) this.remove(k, false);
    this.byTop.delete(topUuid);
  }

  clear(): void {
    this.entries.clear();
    this.byTop.clear();
    this.bytes = 0;
  }

  /** One record (top-level or child) as JSON bytes, as GET /dataset/record answers it. */
  record(reader: RecordReader, rec: RecordRow, opts: RenderOptions): Buffer {
    const schema = this.usable(opts);
    if (!schema) return Buffer.from(JSON.stringify(reader.renderRecord(rec, opts)));
    const cls = this.classOf(opts.viewer, rec, schema);
    const key = `${cls}\n${opts.apiBase}\n${rec.rid}`;
    const hit = this.lookup(key, schema, opts, cls);
    if (hit) return hit;
    const { json, trace } = reader.renderTraced(rec, opts);
    return this.keep(key, cls, schema, trace, json, opts);
  }

  /** Top-level records as JSON bytes each, in the given order (for pages and tables). */
  tops(reader: RecordReader, tops: readonly RecordRow[], opts: RenderOptions): Buffer[] {
    const schema = this.usable(opts);
    if (!schema) return reader.renderTops(tops, opts).map((r) => Buffer.from(JSON.stringify(r)));
    const parts: Buffer[] = new Array(tops.length);
    const missing: number[] = [];
    const keys: string[] = [];
    const classes: ViewClass[] = [];
    tops.forEach((t, i) => {
      const cls = this.classOf(opts.viewer, t, schema);
      const key = `${cls}\n${opts.apiBase}\n${t.rid}`;
      keys.push(key);
      classes.push(cls);
      const hit = this.lookup(key, schema, opts, cls);
      if (hit) parts[i] = hit;
      else missing.push(i);
    });
    if (missing.length) {
      const rendered = reader.renderTopsTraced(
        missing.map((i) => tops[i]!),
        opts,
      );
      missing.forEach((i, k) => {
        parts[i] = this.keep(keys[i]!, classes[i]!, schema, rendered[k]!.trace, rendered[k]!.json, opts);
      });
    }
    return parts;
  }

  /** The schema to key on, or null when the cache must be bypassed for this render. */
  private usable(opts: RenderOptions): Schema | null {
    if (opts.legacyKeys || this.ctx.db.inTransaction) return null;
    const schema = this.ctx.schema.get();
    const dv = this.ctx.schema.seenDataVersion;
    if (dv !== this.dataVersion) {
      this.clear(); // another connection committed: its changes are not in the change-log hook
      this.dataVersion = dv;
    }
    return schema;
  }

  private classOf(viewer: User, rec: RecordRow, schema: Schema): ViewClass {
    return isAdmin(viewer, schema.datatypes.get(rec.datatype_id)!) ? 'admin' : 'public';
  }

  /** Does this render equal the class render for this viewer? */
  private serves(trace: RenderTrace, cls: ViewClass, opts: RenderOptions): boolean {
    for (const ds of trace.datasets) if (isAdmin(opts.viewer, ds) !== (cls === 'admin')) return false;
    if (cls === 'admin') return true;
    return !trace.creators.has(opts.viewer.id) && (trace.nextBoundary === null || opts.now < trace.nextBoundary);
  }

  private lookup(key: string, schema: Schema, opts: RenderOptions, cls: ViewClass): Buffer | null {
    const e = this.entries.get(key);
    if (!e || e.schema !== schema || !this.serves(e.trace, cls, opts)) {
      this.misses++;
      return null;
    }
    // Most recently used last: eviction takes from the front.
    this.entries.delete(key);
    this.entries.set(key, e);
    this.hits++;
    return e.bytes;
  }

  private keep(key: string, cls: ViewClass, schema: Schema, trace: RenderTrace, json: OdrRecord, opts: RenderOptions): Buffer {
    const bytes = Buffer.from(JSON.stringify(json));
    if (!this.serves(trace, cls, opts) || bytes.length > this.budgetBytes / 16) return bytes;
    this.remove(key, true);
    const e: Entry = { key, topUuid: trace.topUuid, bytes, schema, cls, trace };
    this.entries.set(key, e);
    this.bytes += bytes.length;
    let keys = this.byTop.get(e.topUuid);
    if (!keys) this.byTop.set(e.topUuid, (keys = new Set()));
    keys.add(key);
    for (const [k] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.remove(k, true);
    }
    return bytes;
  }

  private remove(key: string, unindex: boolean): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.bytes -= e.bytes.length;
    if (unindex) {
      const keys = this.byTop.get(e.topUuid);
      keys?.delete(key);
      if (keys?.size === 0) this.byTop.delete(e.topUuid);
    }
  }
}
