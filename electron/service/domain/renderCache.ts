import type { Ctx } from './context.js';
import type { WriteOp } from './groupCommit.js';
import { seesAll } from './permissions.js';
import type { RecordReader, RenderOptions, RenderTrace } from './recordReader.js';
import type { RecordRow } from '../store/rows.js';
import type { DatatypeInfo, Schema } from './schemaCache.js';
import type { User } from './users.js';

// Rendered record JSON (bytes), per record and per visibility class of the viewer. A render
// depends on the stored rows, the schema, and the viewer only through: seeing all of the
// record's dataset (its admins and view/edit roles), having created something in the tree (sees
// it), and the time (what is public yet). So one render serves everyone who sees all, and another every
// other viewer who created nothing in the tree, until the tree's next public-date boundary.
//
// Kept true by: every mutation appends to the change log in its own transaction, and
// ChangeLog.append drops the record tree's entries (or everything, for changes without a
// record); entries remember the schema object they were rendered with (template changes
// replace it); another connection's commit (PRAGMA data_version) drops everything; nothing is
// read or kept while this connection is inside a transaction (uncommitted, maybe rolled back),
// except a write's own answer, staged until its batch is durable (`written`).
//
// The read fast path (api/fastReads) finds an entry by uuid without reading the record row: an
// entry remembers the viewers (user id and the users_rev of their rights) who passed the read
// check while it lived, and when. The check depends on the tree's rows and the schema (any
// change drops the entry or replaces the schema) and on the time only one way: what is public
// stays public. So while the entry lives, a viewer who could read it can still, at any later time.

export type ViewClass = 'admin' | 'public';

interface Entry {
  key: string;
  /** `apiBase \n uuid`: the fast path's index. */
  uuidKey: string;
  topUuid: string;
  bytes: Buffer;
  schema: Schema;
  /** The record's dataset, for the viewer's class without its row. */
  datatype: DatatypeInfo;
  cls: ViewClass;
  trace: RenderTrace;
  /**
   * Viewers who passed the read check while this entry lived: user id → the users_rev of the
   * rights they were checked with, and when. A check counts only for the same rev, so a revoked
   * role never reuses one; keyed by id, so a user's replaced User objects are not kept alive.
   */
  readers: Map<number, { rev: string; since: string }>;
}

/**
 * What the cache may hold: its entries' bytes plus ENTRY_OVERHEAD_BYTES each. It bounds the
 * service's memory under reads of many distinct records (issue 17: RSS ≤ 400 MB at 1M records);
 * pages and hot records need far less (a list-100 page of the synthetic dataset is ~0.6 MB).
 */
export const DEFAULT_BUDGET_BYTES = 32 * 2 ** 20;
/**
 * Heap an entry costs beside its bytes: its keys, trace, readers map and index slots (measured
 * 1.8 KB per entry over 3,000 synthetic records, heap after GC). Counted in the budget, so many
 * small renders cannot hold several times the budget in bookkeeping.
 */
export const ENTRY_OVERHEAD_BYTES = 2048;
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

/**
 * A string's UTF-8 bytes in a buffer of their own. Buffer.from puts strings under 4 KB into
 * node's shared 8 KB pool slabs: a kept slice would pin its whole slab (and whatever else was
 * cut from it) for as long as the entry lives, memory the budget does not see.
 */
function ownBytes(text: string, size: number): Buffer {
  const out = Buffer.allocUnsafeSlow(size);
  out.write(text);
  return out;
}

/** A render made inside a group-committed write, kept only once its batch is durable (`written`). */
interface Staged {
  trace: RenderTrace;
  /** The answer's bytes, assembled on first use from the rows read in the write. */
  made: () => Buffer;
  schema: Schema;
  cls: ViewClass;
  opts: RenderOptions;
  rec: RecordRow;
}

export class RenderCache {
  private readonly entries = new Map<string, Entry>();
  /** Renders of writes in the open batch: each leaves with its op's rollback, or a change to its tree. */
  private readonly staged = new Set<Staged>();
  /** Staged renders of committed batches, kept at the next look at PRAGMA data_version (`current`). */
  private pending: Staged[] = [];
  private readonly byTop = new Map<string, Set<string>>();
  /** `apiBase \n uuid` → the record's entries (one per class at most). */
  private readonly byUuid = new Map<string, Entry[]>();
  private bytes = 0;
  private dataVersion = -1;
  hits = 0;
  misses = 0;
  /** Hits of `known` (the fast path; counted in `hits` too). */
  knownHits = 0;

  constructor(
    private readonly ctx: Ctx,
    private readonly budgetBytes = DEFAULT_BUDGET_BYTES,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Answers staged by ops of the batch running now: 0 between batches (read by tests). */
  get stagedCount(): number {
    return this.staged.size;
  }

  /** What the entries count against the budget: their bytes and ENTRY_OVERHEAD_BYTES each. */
  get heldBytes(): number {
    return this.bytes;
  }

  /** A change to a record tree (called by the change log, inside the mutation's transaction). */
  dropTop(topUuid: string): void {
    for (const x of this.staged) if (x.trace.topUuid === topUuid) this.staged.delete(x);
    if (this.pending.length) this.pending = this.pending.filter((x) => x.trace.topUuid !== topUuid);
    const keys = this.byTop.get(topUuid);
    if (!keys) return;
    for (const k of keys) this.remove(k, false);
    this.byTop.delete(topUuid);
  }

  clear(): void {
    this.staged.clear();
    this.pending = [];
    this.entries.clear();
    this.byTop.clear();
    this.byUuid.clear();
    this.bytes = 0;
  }

  /**
   * One record (top-level or child) as JSON bytes, as GET /dataset/record answers it.
   * `readChecked`: the caller has just checked that the viewer may read it (see `known`).
   */
  record(reader: RecordReader, rec: RecordRow, opts: RenderOptions, readChecked = false): Buffer {
    const schema = this.usable(opts);
    if (!schema) return Buffer.from(JSON.stringify(reader.renderRecord(rec, opts)));
    const cls = this.classOf(opts.viewer, rec, schema);
    const key = `${cls}\n${opts.apiBase}\n${rec.rid}`;
    let e = this.lookup(key, schema, opts, cls);
    if (!e) {
      const { json, trace } = reader.renderTraced(rec, opts);
      const kept = this.keep(key, cls, schema, trace, JSON.stringify(json), opts, rec);
      if (Buffer.isBuffer(kept)) return kept;
      e = kept;
    }
    if (readChecked) e.readers.set(opts.viewer.id, { rev: opts.viewer.rev, since: opts.now });
    return e.bytes;
  }

  /**
   * A record as a write's answer, its rows read inside the write's transaction (uncached: they
   * are not committed yet; the viewer passed the read check) and its bytes made from them by the
   * function returned, after the commit (or by the cache when it keeps them first, the same
   * bytes). Inside a group-commit op (`op`), a render the cache would keep is staged with that
   * op: kept once its batch is durable, unless a later change to the tree (or another
   * connection's commit) came first, and dropped if the op or its batch rolls back. So the next
   * read of a record just written is a hit, as when the answer was rendered after the commit.
   */
  written(reader: RecordReader, rec: RecordRow, opts: RenderOptions, op: WriteOp | null): () => Buffer {
    const { json, trace } = reader.readTraced(rec, opts);
    const unkept = () => Buffer.from(JSON.stringify(json()));
    // Rendered in a savepoint nested in the op: that savepoint may roll back while the op goes on
    // and succeeds, and the op's hooks would keep an answer never committed.
    if (!op || opts.legacyKeys || !op.atOwnLevel()) return unkept;
    const schema = this.current();
    const cls = this.classOf(opts.viewer, rec, schema);
    if (!this.serves(trace, cls, opts.viewer, opts.now)) return unkept;
    let made: Buffer | undefined;
    const x: Staged = {
      trace,
      made: () => {
        if (!made) {
          const text = JSON.stringify(json());
          const size = Buffer.byteLength(text);
          made = size > this.budgetBytes / 16 ? Buffer.from(text) : ownBytes(text, size);
        }
        return made;
      },
      schema,
      cls,
      opts,
      rec,
    };
    this.staged.add(x);
    op.onRollback(() => this.staged.delete(x));
    // Kept at the next look at PRAGMA data_version, which every cache use and every write's
    // answer takes anyway, if no other connection committed in between (then everything is
    // dropped); reading it here too cost one more read transaction per batch.
    op.onDurable(() => {
      if (this.staged.delete(x)) this.pending.push(x);
    });
    return x.made;
  }

  /**
   * Record `uuid`'s bytes for a viewer who passed the read check on this very entry before, or
   * null (then the caller takes the full path: row, read check, `record`). Reads no row.
   */
  known(viewer: User, uuid: string, apiBase: string, now: string): Buffer | null {
    // First: it drops everything when another connection has committed.
    const schema = this.usable({ viewer, now, apiBase });
    if (!schema) return null;
    const list = this.byUuid.get(`${apiBase}\n${uuid}`);
    if (!list) return null;
    for (const e of list) {
      if (e.schema !== schema) continue;
      const checked = e.readers.get(viewer.id);
      if (checked === undefined || checked.rev !== viewer.rev || now < checked.since) continue;
      const cls: ViewClass = seesAll(viewer, e.datatype) ? 'admin' : 'public';
      if (cls !== e.cls || !this.serves(e.trace, cls, viewer, now)) continue;
      this.touch(e);
      this.hits++;
      this.knownHits++;
      return e.bytes;
    }
    return null;
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
      if (hit) parts[i] = hit.bytes;
      else missing.push(i);
    });
    if (missing.length) {
      const rendered = reader.renderTopsTraced(
        missing.map((i) => tops[i]!),
        opts,
      );
      missing.forEach((i, k) => {
        const kept = this.keep(keys[i]!, classes[i]!, schema, rendered[k]!.trace, JSON.stringify(rendered[k]!.json), opts, tops[i]!);
        parts[i] = Buffer.isBuffer(kept) ? kept : kept.bytes;
      });
    }
    return parts;
  }

  /** The schema to key on, or null when the cache must be bypassed for this render. */
  private usable(opts: RenderOptions): Schema | null {
    if (opts.legacyKeys || this.ctx.db.inTransaction) return null;
    return this.current();
  }

  /** The schema, after dropping everything if another connection committed since the last look. */
  private current(): Schema {
    const schema = this.ctx.schema.get();
    const dv = this.ctx.schema.seenDataVersion;
    if (dv !== this.dataVersion) {
      this.clear(); // another connection committed: its changes are not in the change-log hook
      this.dataVersion = dv;
    }
    if (this.pending.length) this.keepPending(schema);
    return schema;
  }

  /** Durable answers of writes whose trees nothing changed since (`written`). */
  private keepPending(schema: Schema): void {
    const pending = this.pending;
    this.pending = [];
    for (const x of pending) {
      if (x.schema !== schema) continue;
      const kept = this.keep(`${x.cls}\n${x.opts.apiBase}\n${x.rec.rid}`, x.cls, schema, x.trace, x.made(), x.opts, x.rec);
      if (!Buffer.isBuffer(kept)) kept.readers.set(x.opts.viewer.id, { rev: x.opts.viewer.rev, since: x.opts.now });
    }
  }

  private classOf(viewer: User, rec: RecordRow, schema: Schema): ViewClass {
    return seesAll(viewer, schema.datatypes.get(rec.datatype_id)!) ? 'admin' : 'public';
  }

  /** Does this render equal the class render for this viewer? */
  private serves(trace: RenderTrace, cls: ViewClass, viewer: User, now: string): boolean {
    for (const ds of trace.datasets) if (seesAll(viewer, ds) !== (cls === 'admin')) return false;
    if (cls === 'admin') return true;
    return !trace.creators.has(viewer.id) && (trace.nextBoundary === null || now < trace.nextBoundary);
  }

  private lookup(key: string, schema: Schema, opts: RenderOptions, cls: ViewClass): Entry | null {
    const e = this.entries.get(key);
    if (!e || e.schema !== schema || !this.serves(e.trace, cls, opts.viewer, opts.now)) {
      this.misses++;
      return null;
    }
    this.touch(e);
    this.hits++;
    return e;
  }

  /** Most recently used last: eviction takes from the front. */
  private touch(e: Entry): void {
    this.entries.delete(e.key);
    this.entries.set(e.key, e);
  }

  /** The kept entry, or just the bytes when this render may not be kept. */
  private keep(
    key: string,
    cls: ViewClass,
    schema: Schema,
    trace: RenderTrace,
    /** The JSON text, or bytes of their own (not a pool slice) to keep as they are. */
    body: string | Buffer,
    opts: RenderOptions,
    rec: RecordRow,
  ): Entry | Buffer {
    const own = Buffer.isBuffer(body) ? body : null;
    const size = own ? own.length : Buffer.byteLength(body as string);
    if (!this.serves(trace, cls, opts.viewer, opts.now) || size > this.budgetBytes / 16) return own ?? Buffer.from(body as string);
    const bytes = own ?? ownBytes(body as string, size);
    this.remove(key, true);
    const e: Entry = {
      key,
      uuidKey: `${opts.apiBase}\n${rec.uuid}`,
      topUuid: trace.topUuid,
      bytes,
      schema,
      datatype: schema.datatypes.get(rec.datatype_id)!,
      cls,
      trace,
      readers: new Map(),
    };
    this.entries.set(key, e);
    this.bytes += bytes.length + ENTRY_OVERHEAD_BYTES;
    let keys = this.byTop.get(e.topUuid);
    if (!keys) this.byTop.set(e.topUuid, (keys = new Set()));
    keys.add(key);
    const same = this.byUuid.get(e.uuidKey);
    if (same) same.push(e);
    else this.byUuid.set(e.uuidKey, [e]);
    for (const [k] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.remove(k, true);
    }
    return e;
  }

  private remove(key: string, unindex: boolean): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.bytes -= e.bytes.length + ENTRY_OVERHEAD_BYTES;
    const same = this.byUuid.get(e.uuidKey);
    if (same) {
      const rest = same.filter((x) => x !== e);
      if (rest.length) this.byUuid.set(e.uuidKey, rest);
      else this.byUuid.delete(e.uuidKey);
    }
    if (unindex) {
      const keys = this.byTop.get(e.topUuid);
      keys?.delete(key);
      if (keys?.size === 0) this.byTop.delete(e.topUuid);
    }
  }
}
