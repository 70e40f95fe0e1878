import { assertRead } from './access.js';
import { ChangeLog, type Change } from './changeLog.js';
import { GroupCommit } from './groupCommit.js';
import { Jobs } from './jobs.js';
import { RecordLists } from './records/list.js';
import { RecordTable } from './search/recordTable.js';
import { SearchIndex } from './search/searchIndex.js';
import { nowStamp, type Ctx } from './context.js';
import { notFound } from './errors.js';
import { RecordReader, type RenderOptions } from './recordReader.js';
import { RecordStore } from '../store/records.js';
import type { RecordRow } from '../store/rows.js';
import type { DatatypeInfo, Schema } from './schemaCache.js';
import { Users, type User } from './users.js';

/** Wires the domain's parts around one context; route handlers and the CLI use it. */
export class Domain {
  readonly users: Users;
  readonly store: RecordStore;
  readonly log: ChangeLog;
  readonly reader: RecordReader;
  /** Route handlers' mutations go through here so concurrent ones share a commit. */
  readonly writes: GroupCommit;
  readonly jobs: Jobs;
  readonly search: SearchIndex;
  readonly table: RecordTable;
  /** Top-level record pages and id lists (one per domain: it keeps page starts). */
  readonly lists: RecordLists;

  constructor(readonly ctx: Ctx) {
    this.users = new Users(ctx);
    this.store = new RecordStore(ctx.db);
    this.log = new ChangeLog(ctx);
    this.reader = new RecordReader(ctx);
    this.writes = new GroupCommit(ctx);
    this.jobs = new Jobs(ctx, (id) => this.users.get(id));
    this.search = new SearchIndex(ctx);
    this.table = new RecordTable(this, this.search);
    this.lists = new RecordLists(this);
  }

  now(): string {
    return nowStamp(this.ctx);
  }

  schema(): Schema {
    return this.ctx.schema.get();
  }

  datatype(uuid: string, thing = 'DataType'): DatatypeInfo {
    const dt = this.schema().datatypesByUuid.get(uuid);
    if (!dt) throw notFound(thing);
    return dt;
  }

  record(uuid: string, thing = 'Datarecord'): RecordRow {
    const rec = this.store.byUuid(uuid);
    if (!rec) throw notFound(thing);
    return rec;
  }

  datatypeOf(rec: RecordRow): DatatypeInfo {
    return this.schema().datatypes.get(rec.datatype_id)!;
  }

  /** Appends to the change log with the record's dataset and top-level record filled in. */
  logRecordChange(
    at: string,
    user: User,
    rec: RecordRow,
    c: Omit<Change, 'userId' | 'datasetUuid' | 'recordUuid' | 'topRecordUuid'>,
  ): void {
    const top = this.store.topOf(rec);
    this.log.append(at, {
      ...c,
      userId: user.id,
      datasetUuid: this.datatypeOf(top).uuid,
      recordUuid: rec.uuid,
      topRecordUuid: top.uuid,
    });
  }

  /** Never renders a record its viewer may not read, whichever route asks. */
  render(rec: RecordRow, opts: RenderOptions) {
    assertRead(this, opts.viewer, rec);
    return this.reader.renderRecord(rec, opts);
  }

  /** The record's JSON bytes as HTTP answers send them, from the rendered-record cache; read right checked. */
  renderJson(rec: RecordRow, opts: RenderOptions): Buffer {
    assertRead(this, opts.viewer, rec);
    return this.ctx.renders.record(this.reader, rec, opts, true);
  }

  /**
   * A record's JSON bytes as a group-committed write answers it: its rows read inside that
   * write's transaction, the bytes made when the returned function is called (after the commit),
   * kept in the render cache once the batch is durable (RenderCache.written).
   */
  renderWrittenJson(rec: RecordRow, opts: RenderOptions): () => Buffer {
    assertRead(this, opts.viewer, rec);
    return this.ctx.renders.written(this.reader, rec, opts, this.writes.current);
  }

  /** Record `uuid`'s cached bytes if this viewer passed the read check on them before; else null. */
  knownJson(viewer: User, uuid: string, apiBase: string): Buffer | null {
    return this.ctx.renders.known(viewer, uuid, apiBase, this.now());
  }

  /** Top-level records' JSON bytes, one each, from the rendered-record cache. */
  renderTopsJson(tops: readonly RecordRow[], opts: RenderOptions): Buffer[] {
    return this.ctx.renders.tops(this.reader, tops, opts);
  }

  /** Tells listeners (UI event stream, sync) which records of which dataset changed. */
  announce(recs: readonly RecordRow[]): void {
    const byDataset = new Map<string, string[]>();
    for (const r of recs) {
      const top = this.store.topOf(r);
      const ds = this.datatypeOf(top).uuid;
      const list = byDataset.get(ds) ?? [];
      list.push(top.uuid);
      byDataset.set(ds, list);
    }
    for (const [datasetUuid, recordUuids] of byDataset) this.ctx.events.emit('records', { datasetUuid, recordUuids });
  }
}

/** The viewer used for change-log snapshots: sees everything. */
export const SYSTEM_USER: User = {
  id: 0,
  email: 'system@localhost',
  firstName: '',
  lastName: '',
  isSuper: true,
  display: 'system',
  roles: new Map(),
  rev: 'system',
};
