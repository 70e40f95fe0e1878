import type { Statement } from 'better-sqlite3';
import { formatTimestamp } from '../../../shared/dates.js';
import { fieldTypesOf, normalizeRecord, normalizeTemplate } from '../../../shared/legacy.js';
import type { FieldTypeName } from '../../../shared/fieldTypes.js';
import type { OdrRecord } from '../../../shared/schemas/record.js';
import type { SaveField, SaveRecord } from '../../../shared/schemas/requests.js';
import type { Domain } from '../domain/domain.js';
import { importTemplate } from '../domain/import/importFile.js';
import { RecordImporter } from '../domain/import/importRecords.js';
import { saveRecord } from '../domain/records/save.js';
import { SYSTEM_USER } from '../domain/domain.js';
import type { User } from '../domain/users.js';
import { collectOutbox, pendingOps, type OutboxRow } from './outbox.js';
import { childrenOf, display, fieldStates, keyOf, same, type FieldState } from './recordFields.js';
import { RemoteError, type RemoteClient } from './remoteClient.js';
import type { OdrClient } from '../../../shared/client/odrClient.js';

export interface SyncSummary {
  pushed: number;
  pulled: number;
  created: number;
  conflicts: number;
  parked: number;
  removedOnServer: number;
  pending: number;
  error?: string;
}

const PAGE = 100;
/** The modified-records route floors to seconds and compares with >=: re-read a little. */
const OVERLAP_MS = 2000;
/** Records fetched one by one (modified since the cursor): in flight at once, and per commit. */
const FETCH_CONCURRENCY = 6;
const FETCH_BATCH = 60;
/** Refuse a pull that would put more than this share of a dataset in the "removed" bin. */
const MAX_REMOVED_SHARE = 0.5;

/**
 * One remote, its synced datasets, and the local service: pull (templates, records, deletions)
 * and push (the outbox) with a field-level three-way merge against the last server copy.
 * Every local write it makes is logged with origin "sync", so it never echoes back.
 */
export class SyncEngine {
  private types = new Map<string, FieldTypeName>();

  constructor(
    private readonly d: Domain,
    private readonly remoteId: number,
    private readonly remote: RemoteClient,
    private readonly user: User,
    private readonly remoteUser: string,
  ) {}

  private get db() { return this.d.ctx.db; }

  // Prepared once per engine (one sync run): the pull touches these per record.
  private readonly stmts = new Map<string, Statement>();
  private q(sql: string): Statement {
    let st = this.stmts.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.stmts.set(sql, st);
    }
    return st;
  }

  /** Runs `fn` in one transaction whose change-log rows are marked as coming from the server. */
  private asSync<T>(fn: () => T): T {
    return this.db.transaction(() => {
      const before = this.d.log.origin;
      this.d.log.origin = 'sync';
      try {
        return fn();
      } finally {
        this.d.log.origin = before;
      }
    }).immediate();
  }

  datasets(): string[] {
    return this.q('SELECT dataset_uuid FROM sync_datasets WHERE remote_id = ?').pluck().all(this.remoteId) as string[];
  }

  addDataset(uuid: string): void {
    this.q('INSERT OR IGNORE INTO sync_datasets (remote_id, dataset_uuid) VALUES (?, ?)').run(this.remoteId, uuid);
  }

  // Identity: pulled records keep the server's uuid; records made here map to the server's.

  private remoteOf(local: string): string | null {
    const row = this.q('SELECT remote_uuid, state FROM sync_id_map WHERE local_uuid = ?').get(local) as { remote_uuid: string | null; state: string } | undefined;
    if (!row) return local;
    return row.state === 'bound' ? row.remote_uuid : null;
  }

  private localOf(remote: string): string {
    return (this.q("SELECT local_uuid FROM sync_id_map WHERE remote_id = ? AND remote_uuid = ? AND state = 'bound'").pluck().get(this.remoteId, remote) as string | undefined) ?? remote;
  }

  private base(remoteUuid: string): OdrRecord | null {
    const json = this.q('SELECT json FROM sync_base WHERE remote_id = ? AND remote_uuid = ?').pluck().get(this.remoteId, remoteUuid) as string | undefined;
    return json ? (JSON.parse(json) as OdrRecord) : null;
  }

  private setBase(rec: OdrRecord): void {
    this.q('INSERT OR REPLACE INTO sync_base (remote_id, remote_uuid, json) VALUES (?, ?, ?)').run(this.remoteId, rec.record_uuid, JSON.stringify(rec));
  }

  /** A remote record tree with our local uuids, for comparing with the local copy. */
  private localised(rec: OdrRecord): OdrRecord {
    const map = (r: OdrRecord): OdrRecord => ({ ...r, record_uuid: this.localOf(r.record_uuid), records: (r.records ?? []).map(map) });
    return map(rec);
  }

  private localRecord(uuid: string): OdrRecord | null {
    const row = this.d.store.byUuid(uuid);
    if (!row) return null;
    return this.d.render(row, { viewer: SYSTEM_USER, now: this.d.now(), apiBase: '' });
  }

  // Pull

  async pullTemplate(dataset: string): Promise<void> {
    const tpl = await this.remote.call((c) => c.request<unknown>('GET', `/template/${dataset}`));
    if (!this.d.schema().datatypesByUuid.has(dataset)) this.asSync(() => importTemplate(this.d, this.user, tpl, {}));
    this.types = fieldTypesOf(normalizeTemplate(tpl), this.types);
  }

  private pendingFieldKeys(top: string): Set<string> {
    const rows = this.q(`SELECT record_uuid, field_uuid FROM sync_outbox WHERE top_record_uuid = ? AND state IN ('pending', 'conflict')`).all(top) as { record_uuid: string; field_uuid: string }[];
    return new Set(rows.map((r) => `${r.record_uuid}|${r.field_uuid}`));
  }

  private hasLocalOnlyState(top: string): boolean {
    const pending = this.q(`SELECT 1 FROM sync_outbox WHERE top_record_uuid = ? AND state IN ('pending', 'conflict') LIMIT 1`).get(top);
    const conflicts = this.q('SELECT 1 FROM sync_conflicts WHERE top_record_uuid = ? AND resolved IS NULL LIMIT 1').get(top);
    const row = this.d.store.byUuid(top);
    const files = row ? this.q('SELECT 1 FROM files f JOIN records r ON r.rid = f.record_rid WHERE r.top_rid = ? AND f.content_hash IS NOT NULL LIMIT 1').get(row.rid) : undefined;
    return !!(pending || conflicts || files);
  }

  /**
   * Brings one server record in. New or untouched here: stored as the server has it. Edited
   * here: field by field — server changes to fields we did not touch are applied, equal changes
   * cancel, and a field changed on both sides becomes a conflict that blocks nothing else.
   */
  private applyRemote(theirsRaw: OdrRecord, dataset: string, importer: RecordImporter): 'new' | 'replaced' | 'merged' | 'same' {
    const theirs = this.localised(theirsRaw);
    const base = this.base(theirsRaw.record_uuid);
    const localUuid = theirs.record_uuid;
    const existing = this.d.store.byUuid(localUuid);
    if (!existing) {
      this.asSync(() => importer.importTop(theirs, this.types));
      this.setBase(theirsRaw);
      return 'new';
    }
    if (base && JSON.stringify(base) === JSON.stringify(theirsRaw)) return 'same';
    if (!this.hasLocalOnlyState(localUuid)) {
      const local = this.localRecord(localUuid);
      const localKnownChildren = new Set(local ? childrenOf(local).map((c) => c.record_uuid) : []);
      const theirChildren = childrenOf(theirs).map((c) => c.record_uuid);
      // Children created here and not yet on the server keep it on the merge path.
      const unpushedChildren = [...localKnownChildren].some((c) => !theirChildren.includes(c));
      if (!unpushedChildren) {
        this.asSync(() => {
          const rr = new RecordImporter(this.d, this.user, true);
          rr.importTop(theirs, this.types);
        });
        this.setBase(theirsRaw);
        return 'replaced';
      }
    }
    this.merge(theirs, base ? this.localised(base) : null, dataset);
    this.setBase(theirsRaw);
    return 'merged';
  }

  private merge(theirs: OdrRecord, base: OdrRecord | null, dataset: string): void {
    const local = this.localRecord(theirs.record_uuid);
    if (!local) return;
    const T = fieldStates(theirs);
    const B = base ? fieldStates(base) : new Map<string, FieldState>();
    const L = fieldStates(local);
    const pending = this.pendingFieldKeys(theirs.record_uuid);
    const apply = new Map<string, FieldState>();
    const at = new Date().toISOString();
    const conflict = this.q(`INSERT INTO sync_conflicts (dataset_uuid, record_uuid, top_record_uuid, field_uuid, field_name, base, mine, theirs, created)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (record_uuid, field_uuid) WHERE resolved IS NULL DO UPDATE SET theirs = excluded.theirs, mine = excluded.mine`);
    const localRecords = new Set([local.record_uuid, ...childrenOf(local).map((c) => c.record_uuid)]);
    for (const [k, t] of T) {
      if (!localRecords.has(t.record)) continue; // a child new on the server: next clean pull brings it
      const b = keyOf(B, k);
      const l = keyOf(L, k);
      if (same(t.key, b) || same(t.key, l)) continue;
      const changedHere = pending.has(k) || (B.size > 0 && !same(l, b));
      if (!changedHere) apply.set(k, t);
      else if (t.key.startsWith('val:') || t.key.startsWith('bool:')) {
        conflict.run(dataset, t.record, theirs.record_uuid, t.field, t.name, display(B.get(k)), display(L.get(k)), display(t), at);
      }
      // Option and tag sets changed on both sides: ours is pushed (set operations), theirs waits.
    }
    if (!apply.size) return;
    this.asSync(() => saveRecord(this.d, this.user, payloadFor(theirs, apply)));
  }

  /** Pull one dataset: first time page by page, then through the modified-records route. */
  async pull(dataset: string, onRecord?: () => void): Promise<{ pulled: number; removed: number }> {
    await this.pullTemplate(dataset);
    const row = this.q('SELECT cursor FROM sync_datasets WHERE remote_id = ? AND dataset_uuid = ?').get(this.remoteId, dataset) as { cursor: string | null } | undefined;
    const importer = new RecordImporter(this.d, this.user, false);
    let pulled = 0;
    let maxSeen = row?.cursor ?? '';
    const seenIds = new Set<string>();
    const seen = (r: OdrRecord) => {
      seenIds.add(r.record_uuid);
      const u = r._record_metadata._update_date ?? r._record_metadata._updated_date ?? '';
      if (u > maxSeen) maxSeen = u;
    };
    const apply = (r: OdrRecord) => {
      if (this.applyRemote(r, dataset, importer) !== 'same') pulled++;
      seen(r);
      onRecord?.();
    };
    // One transaction per batch of records: a commit (fsync) per record would cost more than the
    // record itself.
    const applyBatch = this.db.transaction((rs: OdrRecord[]) => rs.forEach(apply));
    const fetchAll = async (ids: string[]) => {
      for (let i = 0; i < ids.length; i += FETCH_BATCH) {
        const got = await mapLimit(ids.slice(i, i + FETCH_BATCH), FETCH_CONCURRENCY, async (id) => {
          try {
            return await this.remote.record(id, this.types);
          } catch (e) {
            if (e instanceof RemoteError && e.kind === 'gone') return null;
            throw e;
          }
        });
        applyBatch.immediate(got.filter((r): r is OdrRecord => r !== null));
      }
    };
    const allIds = await this.remote.allIds(dataset);
    // Everything the server had committed when it listed the ids is read below, so the next pull
    // can start there (less the overlap) even when every record is older: otherwise a dataset
    // whose records share one update second would be read again by each incremental pull.
    if (this.remote.serverTime !== null) {
      const listedAt = formatTimestamp(new Date(this.remote.serverTime));
      if (listedAt > maxSeen) maxSeen = listedAt;
    }
    if (!row?.cursor) {
      // Pages are the fast path; the id listing is the truth. Some servers ignore the limit for
      // admins and answer everything on every page (reference §9.9): a page with nothing new ends
      // it. The next page is fetched while this one is stored.
      const got = new Set<string>();
      let next = this.remote.page(dataset, PAGE, 0, this.types);
      for (let offset = 0; ; offset += PAGE) {
        const page = await next;
        const more = page.length === PAGE;
        if (more) next = this.remote.page(dataset, PAGE, offset + PAGE, this.types);
        const fresh = page.filter((r) => !got.has(r.record_uuid) && got.add(r.record_uuid));
        applyBatch.immediate(fresh);
        if (!more || !fresh.length) {
          if (more) next.catch(() => undefined); // not needed after all
          break;
        }
      }
      await fetchAll(allIds.filter((id) => !got.has(id)));
    } else {
      const since = Date.parse(`${row.cursor.replace(' ', 'T')}Z`) - OVERLAP_MS;
      await fetchAll(await this.remote.modifiedIds(dataset, since));
    }
    if (pulled) this.asSync(() => importer.finish());
    // Listed before the pull started, so anything pulled since counts as present too.
    const removed = this.detectRemovals(dataset, new Set([...allIds, ...seenIds]));
    this.q('UPDATE sync_datasets SET cursor = ?, last_pull = ? WHERE remote_id = ? AND dataset_uuid = ?')
      .run(maxSeen || null, new Date().toISOString(), this.remoteId, dataset);
    return { pulled, removed };
  }

  /** Records we had from the server that it no longer lists go to the bin, never erased. */
  private detectRemovals(dataset: string, ids: Set<string>): number {
    const dt = this.d.schema().datatypesByUuid.get(dataset);
    if (!dt) return 0;
    const known = this.q(`SELECT b.remote_uuid FROM sync_base b WHERE b.remote_id = ?`).pluck().all(this.remoteId) as string[];
    const locals = new Set(this.q('SELECT uuid FROM records WHERE datatype_id = ? AND parent_rid IS NULL').pluck().all(dt.id) as string[]);
    const gone = known.filter((u) => locals.has(this.localOf(u)) && !ids.has(u));
    if (gone.length > 10 && gone.length > locals.size * MAX_REMOVED_SHARE) {
      throw new RemoteError('permanent', `refusing to pull: the server no longer lists ${gone.length} of ${locals.size} records of ${dataset}; check the remote before syncing again`);
    }
    const ins = this.q('INSERT OR IGNORE INTO sync_removed (record_uuid, dataset_uuid, detected) VALUES (?, ?, ?)');
    const at = new Date().toISOString();
    let n = 0;
    for (const u of gone) n += ins.run(this.localOf(u), dataset, at).changes;
    return n;
  }

  // Push

  private park(op: OutboxRow, error: string, state = 'parked'): void {
    this.q('UPDATE sync_outbox SET state = ?, last_error = ?, attempts = attempts + 1 WHERE id = ?').run(state, error, op.id);
  }

  private done(op: OutboxRow): void {
    this.q("UPDATE sync_outbox SET state = 'done' WHERE id = ?").run(op.id);
  }

  /**
   * Replays pending operations in order. Creates first settle their identity (reconciling an
   * ambiguous earlier attempt before any retry); each record's operations are checked against
   * a fresh server copy; a transient failure ends the pass (the next one resumes).
   */
  async push(onOp?: () => void): Promise<{ pushed: number; created: number; parked: number; conflicts: number }> {
    collectOutbox(this.d.ctx, new Set(this.datasets()));
    const stats = { pushed: 0, created: 0, parked: 0, conflicts: 0 };
    const importer = new RecordImporter(this.d, this.user, false);
    const ops = pendingOps(this.d.ctx);
    const byTop = new Map<string, OutboxRow[]>();
    for (const op of ops) {
      const list = byTop.get(op.top_record_uuid) ?? [];
      list.push(op);
      byTop.set(op.top_record_uuid, list);
    }
    const settle = this.db.transaction((ops: OutboxRow[], after: OdrRecord | null, dataset: string) => {
      for (const op of ops) this.done(op);
      if (after) this.applyRemote(after, dataset, importer);
    });
    for (const [top, list] of byTop) {
      let fresh: OdrRecord | null = null;
      // Idempotent writes (value, option, public, delete) are marked done together with the
      // server's copy after them, in one commit; after a crash in between they are sent again,
      // which changes nothing. Creates record their progress at once (see pushCreate).
      const sent: OutboxRow[] = [];
      // The answer to the last write, when it is the top-level record: the server's copy after
      // our writes, without reading it again.
      let answer: unknown;
      for (const op of list) {
        answer = undefined;
        try {
          if (op.op === 'create') {
            if (await this.pushCreate(op)) stats.created++;
            fresh = null;
          } else if (op.op === 'create_child') {
            await this.pushCreateChild(op);
            stats.created++;
            fresh = null;
          } else if (op.op === 'delete') {
            const r = this.remoteOf(op.record_uuid);
            if (r) {
              await this.remote.call((c) => c.deleteRecords([r]), true).catch((e: unknown) => {
                if (!(e instanceof RemoteError && e.kind === 'gone')) throw e;
              });
              this.q('DELETE FROM sync_base WHERE remote_id = ? AND remote_uuid = ?').run(this.remoteId, r);
            }
            sent.push(op);
          } else {
            const topR = this.remoteOf(top);
            const recR = this.remoteOf(op.record_uuid);
            if (!topR || !recR) continue; // its create has not gone through yet
            fresh ??= await this.remote.record(topR, this.types);
            if (op.op === 'value') {
              // A "keep mine" resolution overrides only the server value it was chosen against;
              // if the server moved on since, that is a new conflict (force-with-lease).
              const { over } = JSON.parse(op.payload ?? '{}') as { over?: string | null };
              const leased = over !== undefined && display(fieldStates(fresh).get(`${recR}|${op.field_uuid}`)) === over;
              if (!leased && this.conflicting(op, fresh, recR)) {
                stats.conflicts++;
                continue;
              }
              const value = (JSON.parse(op.payload ?? '{}') as { value: unknown }).value;
              answer = await this.childWrite(op, top, (c) => c.setValue(recR, op.field_uuid, value === null ? '' : (value as string | number)));
            } else if (op.op === 'option') {
              const on = (JSON.parse(op.payload ?? '{}') as { on: boolean }).on;
              answer = await this.childWrite(op, top, (c) => c.setOption(recR, op.field_uuid, op.item_uuid, on));
            } else if (op.op === 'public') {
              const date = (JSON.parse(op.payload ?? '{}') as { public_date: string | null }).public_date;
              answer = await this.childWrite(op, top, (c) => c.setPublic({ user_email: this.remoteUser, dataset_uuid: op.dataset_uuid, record_uuid: recR, ...(date ? { public_date: date } : {}) }));
            }
            sent.push(op);
          }
          stats.pushed++;
          onOp?.();
        } catch (e) {
          if (sent.length) settle.immediate(sent, null, op.dataset_uuid);
          if (!(e instanceof RemoteError)) throw e;
          if (e.kind === 'permanent' || (e.kind === 'gone' && op.op !== 'delete')) {
            this.park(op, e.message);
            stats.parked++;
            sent.length = 0;
            continue;
          }
          this.q('UPDATE sync_outbox SET attempts = attempts + 1, last_error = ? WHERE id = ?').run(e.message, op.id);
          throw e;
        }
      }
      const topR = this.remoteOf(top);
      let after: OdrRecord | null = null;
      if (topR && this.d.store.byUuid(top)) {
        try {
          // The server's copy after our writes: its other changes come in now, then it is the base.
          const answered = answer as { record_uuid?: unknown } | undefined;
          after = answered?.record_uuid === topR ? normalizeRecord(answered, this.types) : await this.remote.record(topR, this.types);
        } catch (e) {
          if (!(e instanceof RemoteError && e.kind === 'gone')) throw e;
        }
      }
      settle.immediate(sent, after, list[0]!.dataset_uuid);
    }
    if (stats.pushed || stats.created) for (const ds of this.datasets()) this.q('UPDATE sync_datasets SET last_push = ? WHERE remote_id = ? AND dataset_uuid = ?').run(new Date().toISOString(), this.remoteId, ds);
    return stats;
  }

  /**
   * A write on a record. Real servers apply value, option and publish calls on a child record
   * but answer 400 (reference §9.4): for a child that answer counts as done, and the top-level
   * record read afterwards shows what the server holds.
   */
  private async childWrite(op: OutboxRow, top: string, fn: (c: OdrClient) => Promise<unknown>): Promise<unknown> {
    try {
      return await this.remote.call(fn, true);
    } catch (e) {
      if (e instanceof RemoteError && e.status === 400 && op.record_uuid !== top) return undefined;
      throw e;
    }
  }

  /** A field changed on the server since our base and differently from ours: record, skip. */
  private conflicting(op: OutboxRow, fresh: OdrRecord, recR: string): boolean {
    const base = this.base(fresh.record_uuid);
    if (!base) return false;
    const k = `${recR}|${op.field_uuid}`;
    const t = keyOf(fieldStates(fresh), k);
    const b = keyOf(fieldStates(base), k);
    if (same(t, b)) return false;
    const local = this.localRecord(op.top_record_uuid);
    const L = local ? fieldStates(local) : new Map<string, FieldState>();
    const lk = `${op.record_uuid}|${op.field_uuid}`;
    if (same(keyOf(L, lk), t)) return false;
    this.q(`INSERT INTO sync_conflicts (dataset_uuid, record_uuid, top_record_uuid, field_uuid, field_name, base, mine, theirs, created)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (record_uuid, field_uuid) WHERE resolved IS NULL DO UPDATE SET theirs = excluded.theirs, mine = excluded.mine`)
      .run(op.dataset_uuid, op.record_uuid, op.top_record_uuid, op.field_uuid, fieldStates(fresh).get(k)?.name ?? op.field_uuid,
        display(fieldStates(base).get(k)), display(L.get(lk)), display(fieldStates(fresh).get(k)), new Date().toISOString());
    this.park(op, 'changed on the server too: see conflicts', 'conflict');
    return true;
  }

  /**
   * A record made here. The request carries a unique `created` stamp and our user, which is
   * the fingerprint: after an ambiguous answer (timeout, reset, 5xx) we look for a record with
   * that stamp before ever sending the create again.
   */
  private async pushCreate(op: OutboxRow): Promise<boolean> {
    const row = this.q('SELECT state, remote_uuid, attempted_at FROM sync_id_map WHERE local_uuid = ?').get(op.record_uuid) as { state: string; remote_uuid: string | null; attempted_at: string | null } | undefined;
    if (row?.state === 'bound') {
      this.done(op);
      return false;
    }
    if (row?.state === 'creating' && row.attempted_at) {
      const found = await this.findCreated(op.dataset_uuid, row.attempted_at);
      if (found) {
        this.bind(op.record_uuid, found);
        await this.afterCreate(op);
        return true;
      }
    }
    const stamp = formatTimestamp(new Date(Date.now() + Math.floor(Math.random() * 1000) * 1000));
    this.q(`INSERT OR REPLACE INTO sync_id_map (local_uuid, remote_id, remote_uuid, state, attempted_at) VALUES (?, ?, NULL, 'creating', ?)`)
      .run(op.record_uuid, this.remoteId, stamp);
    const local = this.d.store.byUuid(op.record_uuid);
    const rec = await this.remote.call((c) => c.createRecord(op.dataset_uuid, { created: stamp, ...(local ? { public_date: local.public_date } : {}) }), true);
    this.bind(op.record_uuid, rec.record_uuid);
    await this.afterCreate(op);
    return true;
  }

  private bind(local: string, remote: string): void {
    this.q(`UPDATE sync_id_map SET remote_uuid = ?, state = 'bound' WHERE local_uuid = ?`).run(remote, local);
  }

  private async afterCreate(op: OutboxRow): Promise<void> {
    const r = this.remoteOf(op.record_uuid)!;
    // The server selects default options on create just as we did: the base starts from its copy.
    this.setBase(await this.remote.record(r, this.types));
    this.done(op);
  }

  private async findCreated(dataset: string, stamp: string): Promise<string | null> {
    const since = Date.parse(`${stamp.replace(' ', 'T')}Z`) - 10 * 60_000;
    for (const id of await this.remote.modifiedIds(dataset, since)) {
      if (this.q('SELECT 1 FROM sync_id_map WHERE remote_id = ? AND remote_uuid = ?').get(this.remoteId, id)) continue;
      if (this.base(id)) continue;
      const r = await this.remote.record(id, this.types).catch(() => null);
      if (r && r._record_metadata._create_date === stamp && r._record_metadata._create_auth) return id;
    }
    return null;
  }

  /** A child record: saved as full state (every existing child listed) with the new one added. */
  private async pushCreateChild(op: OutboxRow): Promise<void> {
    const info = JSON.parse(op.payload ?? '{}') as { parent_uuid: string; database_uuid: string; before?: string[] };
    const topR = this.remoteOf(op.top_record_uuid);
    const parentR = this.remoteOf(info.parent_uuid);
    if (!topR || !parentR) throw new RemoteError('transient', 'parent not on the server yet');
    const fresh = await this.remote.record(topR, this.types);
    const kidsOf = (rec: OdrRecord) => (findIn(rec, parentR)?.records ?? []).filter((c) => c.database_uuid === info.database_uuid).map((c) => c.record_uuid);
    const row = this.q('SELECT state FROM sync_id_map WHERE local_uuid = ?').get(op.record_uuid) as { state: string } | undefined;
    if (row?.state === 'creating' && info.before) {
      const added = kidsOf(fresh).filter((u) => !info.before!.includes(u) && !this.q('SELECT 1 FROM sync_id_map WHERE remote_uuid = ?').get(u));
      if (added.length) {
        this.bind(op.record_uuid, added[0]!);
        this.done(op);
        return;
      }
    }
    const before = kidsOf(fresh);
    this.q('UPDATE sync_outbox SET payload = ? WHERE id = ?').run(JSON.stringify({ ...info, before }), op.id);
    this.q(`INSERT OR REPLACE INTO sync_id_map (local_uuid, remote_id, remote_uuid, state, attempted_at) VALUES (?, ?, NULL, 'creating', ?)`)
      .run(op.record_uuid, this.remoteId, new Date().toISOString());
    await this.remote.call((c) => c.save(fullStateWithNewChild(fresh, parentR, info.database_uuid)), true);
    const after = await this.remote.record(topR, this.types);
    const added = kidsOf(after).filter((u) => !before.includes(u));
    if (!added.length) throw new RemoteError('permanent', 'the server accepted the child record but does not list it');
    this.bind(op.record_uuid, added[0]!);
    this.setBase(after);
    this.done(op);
  }

  /** Outbox first, then the server's changes; repeat while either side moves. */
  async syncOnce(onProgress?: (what: string) => void): Promise<SyncSummary> {
    const push = await this.push(() => onProgress?.('push'));
    let pulled = 0;
    let removed = 0;
    for (const ds of this.datasets()) {
      const r = await this.pull(ds, () => onProgress?.('pull'));
      pulled += r.pulled;
      removed += r.removed;
    }
    const counts = this.q(`SELECT
        (SELECT COUNT(*) FROM sync_outbox WHERE state = 'pending') AS pending,
        (SELECT COUNT(*) FROM sync_conflicts WHERE resolved IS NULL) AS conflicts,
        (SELECT COUNT(*) FROM sync_outbox WHERE state = 'parked') AS parked`).get() as { pending: number; conflicts: number; parked: number };
    return { pushed: push.pushed, created: push.created, pulled, removedOnServer: removed, ...counts };
  }
}

function findIn(rec: OdrRecord, uuid: string): OdrRecord | undefined {
  if (rec.record_uuid === uuid) return rec;
  for (const c of rec.records ?? []) {
    const f = findIn(c, uuid);
    if (f) return f;
  }
  return undefined;
}

/** The save body real servers need: every existing descendant listed (fact 1), plus the new child. */
export function fullStateWithNewChild(top: OdrRecord, parent: string, database: string): SaveRecord {
  const walk = (r: OdrRecord): SaveRecord => {
    const kids: SaveRecord[] = (r.records ?? []).map(walk);
    if (r.record_uuid === parent) kids.push({ record_uuid: '', database_uuid: database, fields: [] });
    return { record_uuid: r.record_uuid, database_uuid: r.database_uuid, records: kids };
  };
  return walk(top);
}

/** A save body carrying the given fields of a record tree (the values the server has). */
export function payloadFor(top: OdrRecord, fields: Map<string, FieldState>): SaveRecord {
  const fieldsOf = (uuid: string): SaveField[] => [...fields.values()].filter((f) => f.record === uuid).map((f) => {
    const e = f.entry;
    if (e.values) return { field_uuid: f.field, values: e.values.map((v) => ({ template_radio_option_uuid: v.template_radio_option_uuid })) };
    if (e.tags) return { field_uuid: f.field, tags: e.tags.map((t) => ({ template_tag_uuid: t.template_tag_uuid })) };
    if (e.selected !== undefined) return { field_uuid: f.field, selected: e.selected };
    return { field_uuid: f.field, value: e.value === null || e.value === undefined ? '' : e.value };
  });
  const walk = (r: OdrRecord): SaveRecord => {
    const kids = (r.records ?? []).map(walk).filter((k) => (k.fields?.length ?? 0) > 0 || (k.records?.length ?? 0) > 0);
    return { record_uuid: r.record_uuid, fields: fieldsOf(r.record_uuid), ...(kids.length ? { records: kids } : {}) };
  };
  return walk(top);
}

/** Runs `fn` over `items` with at most `limit` in flight; results in input order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
