import type { Db } from './db.js';
import { nextRowIdSql } from './newIds.js';
import { shaped } from './prepared.js';
import { z } from 'zod';
import type { OdrRecord } from '../../../shared/schemas/record.js';
import type { ParkedOperation, RemovedOnServer, SyncConflict, SyncDataset } from '../../../shared/schemas/sync.js';

// Everything sync remembers between runs lives in the sync_* tables (migration 004); this module
// is the only one that reads or writes them, and it hands the engine typed rows.

/** A field changed on both sides; values as people see them (sync/merge.ts makes them). */
export interface ConflictDraft {
  record: string;
  field: string;
  name: string;
  base: string;
  mine: string;
  theirs: string;
}

/** What each outbox operation carries; checked when read, so a bad row is parked, not thrown. */
const Scalar = z.union([z.string(), z.number(), z.null()]);
const OpBase = {
  id: z.number(),
  dataset_uuid: z.string(),
  record_uuid: z.string(),
  top_record_uuid: z.string(),
  field_uuid: z.string(),
  item_uuid: z.string(),
  attempts: z.number(),
  /** Bumped when a newer local edit replaces the payload (see `done`). */
  rev: z.number(),
};
/** `over`: a "keep mine" choice overrides only the server value it was chosen against. */
export const OutboxOp = z.discriminatedUnion('op', [
  // `imported`: the record came from an import and may carry a uuid the server already has.
  z.object({ ...OpBase, op: z.literal('create'), payload: z.object({ imported: z.literal(true) }).nullable() }),
  z.object({
    ...OpBase,
    op: z.literal('create_child'),
    payload: z.object({ parent_uuid: z.string(), database_uuid: z.string(), before: z.array(z.string()).optional() }),
  }),
  z.object({ ...OpBase, op: z.literal('value'), payload: z.object({ value: Scalar, over: z.string().optional() }) }),
  z.object({ ...OpBase, op: z.literal('option'), payload: z.object({ on: z.boolean(), over: z.string().optional() }) }),
  z.object({ ...OpBase, op: z.literal('public'), payload: z.object({ public_date: z.string().nullable(), over: z.string().optional() }) }),
  z.object({ ...OpBase, op: z.literal('delete'), payload: z.null() }),
  // Make the server's copy of the record equal to ours (written without field-level entries).
  z.object({ ...OpBase, op: z.literal('converge'), payload: z.null() }),
  // Files (item_uuid: the local file). An upload and a metadata change read the file as it is
  // when sent; a delete carries what the file was, to find an upload whose answer was lost.
  z.object({ ...OpBase, op: z.literal('file_upload'), payload: z.null() }),
  z.object({
    ...OpBase,
    op: z.literal('file_meta'),
    payload: z
      .object({
        /** "Keep mine" after a conflict: sent whatever the server changed. */
        force: z.boolean().optional(),
        /** The server's metadata when the conflict was found ("keep theirs" applies it here). */
        theirs: z.object({ public_date: z.string(), quality: z.number(), display_order: z.number() }).optional(),
      })
      .nullable(),
  }),
  z.object({
    ...OpBase,
    op: z.literal('file_delete'),
    payload: z.object({
      name: z.string(),
      size: z.number().nullable(),
      image: z.boolean(),
      /** "Keep mine" after a conflict: deleted whatever the server changed. */
      force: z.boolean().optional(),
      /** The server's entry when the conflict was found ("keep theirs" puts it back here). */
      theirs: z.unknown().optional(),
    }),
  }),
]);
export type OutboxOp = z.infer<typeof OutboxOp>;
export type OpName = OutboxOp['op'];
export type ChildInfo = Extract<OutboxOp, { op: 'create_child' }>['payload'];

export interface IdMapRow {
  state: 'creating' | 'bound';
  remote_uuid: string | null;
  attempted_at: string | null;
}

interface RawOutboxRow {
  id: number;
  dataset_uuid: string;
  record_uuid: string;
  top_record_uuid: string;
  op: string;
  field_uuid: string;
  item_uuid: string;
  payload: string | null;
  attempts: number;
  rev: number;
}

const now = () => new Date().toISOString();

/** The sync state of one remote: datasets and cursors, id map, base copies, outbox, conflicts, bin. */
export class SyncState {
  constructor(
    private readonly db: Db,
    readonly remoteId: number,
  ) {}

  /** Statements are prepared once per connection and SQL text. */
  private q(sql: string) {
    return shaped(this.db)(sql);
  }

  // Datasets and pull cursors

  datasets(): string[] {
    return this.q('SELECT dataset_uuid FROM sync_datasets WHERE remote_id = ?').pluck().all(this.remoteId) as string[];
  }

  addDataset(uuid: string): void {
    this.q('INSERT OR IGNORE INTO sync_datasets (remote_id, dataset_uuid) VALUES (?, ?)').run(this.remoteId, uuid);
  }

  cursor(dataset: string): string | null {
    return (
      (this.q('SELECT cursor FROM sync_datasets WHERE remote_id = ? AND dataset_uuid = ?').pluck().get(this.remoteId, dataset) as
        string | null | undefined) ?? null
    );
  }

  pulled(dataset: string, cursor: string | null): void {
    this.q('UPDATE sync_datasets SET cursor = ?, last_pull = ? WHERE remote_id = ? AND dataset_uuid = ?').run(
      cursor,
      now(),
      this.remoteId,
      dataset,
    );
  }

  pushed(): void {
    this.q('UPDATE sync_datasets SET last_push = ? WHERE remote_id = ?').run(now(), this.remoteId);
  }

  // Identity: pulled records keep the server's uuid; records made here map to the server's.

  /** The server's uuid of a local record; null while its create has not gone through. */
  remoteOf(local: string): string | null {
    const row = this.idRow(local);
    if (!row) return local;
    return row.state === 'bound' ? row.remote_uuid : null;
  }

  localOf(remote: string): string {
    return (
      (this.q("SELECT local_uuid FROM sync_id_map WHERE remote_id = ? AND remote_uuid = ? AND state = 'bound'")
        .pluck()
        .get(this.remoteId, remote) as string | undefined) ?? remote
    );
  }

  idRow(local: string): IdMapRow | undefined {
    return this.q('SELECT state, remote_uuid, attempted_at FROM sync_id_map WHERE local_uuid = ?').get(local) as IdMapRow | undefined;
  }

  /** A remote uuid some local record is already bound to. */
  isMapped(remote: string): boolean {
    return !!this.q('SELECT 1 FROM sync_id_map WHERE remote_id = ? AND remote_uuid = ?').get(this.remoteId, remote);
  }

  /** A top-level create of the dataset sent and not answered yet (its answer may have been lost). */
  hasUnsettledCreate(dataset: string): boolean {
    return !!this.q(
      `SELECT 1 FROM sync_id_map m JOIN sync_outbox o ON o.record_uuid = m.local_uuid
        WHERE m.remote_id = ? AND m.state = 'creating' AND o.op = 'create' AND o.state = 'pending' AND o.dataset_uuid = ? LIMIT 1`,
    ).get(this.remoteId, dataset);
  }

  /** Durable before the create is sent: a crash after it leaves "creating", reconciled first. */
  beginCreate(local: string, stamp: string): void {
    this.q(
      `INSERT OR REPLACE INTO sync_id_map (local_uuid, remote_id, remote_uuid, state, attempted_at) VALUES (?, ?, NULL, 'creating', ?)`,
    ).run(local, this.remoteId, stamp);
  }

  bind(local: string, remote: string): void {
    this.q(`UPDATE sync_id_map SET remote_uuid = ?, state = 'bound' WHERE local_uuid = ?`).run(remote, local);
  }

  // Base copies: the last server copy of each record, the merge's common ancestor.

  base(remoteUuid: string): OdrRecord | null {
    const json = this.q('SELECT json FROM sync_base WHERE remote_id = ? AND remote_uuid = ?').pluck().get(this.remoteId, remoteUuid) as
      string | undefined;
    return json ? (JSON.parse(json) as OdrRecord) : null;
  }

  baseJson(remoteUuid: string): string | undefined {
    return this.q('SELECT json FROM sync_base WHERE remote_id = ? AND remote_uuid = ?').pluck().get(this.remoteId, remoteUuid) as
      string | undefined;
  }

  /** `baseJson` of many records in one query (a pulled page): only those that have one. */
  baseJsons(remoteUuids: readonly string[]): Map<string, string> {
    if (!remoteUuids.length) return new Map();
    const rows = this.q(
      'SELECT remote_uuid, json FROM sync_base WHERE remote_id = ? AND remote_uuid IN (SELECT value FROM json_each(?))',
    ).all(this.remoteId, JSON.stringify(remoteUuids)) as { remote_uuid: string; json: string }[];
    return new Map(rows.map((r) => [r.remote_uuid, r.json]));
  }

  /** `json`: the record serialized, when the caller has it already. */
  setBase(rec: OdrRecord, json = JSON.stringify(rec)): void {
    this.q('INSERT OR REPLACE INTO sync_base (remote_id, remote_uuid, json) VALUES (?, ?, ?)').run(this.remoteId, rec.record_uuid, json);
  }

  dropBase(remoteUuid: string): void {
    this.q('DELETE FROM sync_base WHERE remote_id = ? AND remote_uuid = ?').run(this.remoteId, remoteUuid);
  }

  knownRemotes(): string[] {
    return this.q('SELECT remote_uuid FROM sync_base WHERE remote_id = ?').pluck().all(this.remoteId) as string[];
  }

  // Outbox

  /** Pending operations in order (all, or one record's), typed; a row whose payload does not parse is parked with why. */
  pending(record?: string): OutboxOp[] {
    const cols = 'id, dataset_uuid, record_uuid, top_record_uuid, op, field_uuid, item_uuid, payload, attempts, rev';
    const rows = (
      record === undefined
        ? this.q(`SELECT ${cols} FROM sync_outbox WHERE state = 'pending' ORDER BY id`).all()
        : this.q(`SELECT ${cols} FROM sync_outbox WHERE state = 'pending' AND record_uuid = ? ORDER BY id`).all(record)
    ) as RawOutboxRow[];
    const out: OutboxOp[] = [];
    for (const r of rows) {
      let payload: unknown;
      try {
        payload = r.payload === null ? null : JSON.parse(r.payload);
      } catch {
        payload = undefined;
      }
      const parsed = OutboxOp.safeParse({ ...r, payload });
      if (parsed.success) out.push(parsed.data);
      else this.park(r, `unreadable operation: ${parsed.error.issues[0]?.message ?? 'bad payload'}`);
    }
    return out;
  }

  pendingCount(): number {
    return this.q("SELECT COUNT(*) FROM sync_outbox WHERE state = 'pending'").pluck().get() as number;
  }

  /**
   * Marks a sent operation done, unless a newer local edit was collected into it meanwhile (its
   * `rev` moved): then it stays pending and the next pass sends the newer state.
   */
  done(op: { id: number; rev: number }): void {
    this.q("UPDATE sync_outbox SET state = 'done' WHERE id = ? AND rev = ?").run(op.id, op.rev);
  }

  /**
   * Takes a refused operation out of the queue, unless a newer local edit was collected into it
   * while it was being sent (its `rev` moved, as in `done`): that edit stays pending and is sent.
   */
  park(op: { id: number; rev: number }, error: string, state: 'parked' | 'conflict' = 'parked'): void {
    this.q('UPDATE sync_outbox SET state = ?, last_error = ?, attempts = attempts + 1 WHERE id = ? AND rev = ?').run(
      state,
      error,
      op.id,
      op.rev,
    );
  }

  /**
   * A refused delete whose record is back here: listed under "needs attention" with why (the
   * restore that brought the record back dropped the operation itself).
   */
  refusedDelete(op: { dataset_uuid: string; record_uuid: string; top_record_uuid: string }, error: string): void {
    this.q(
      `INSERT INTO sync_outbox (id, dataset_uuid, record_uuid, top_record_uuid, op, state, attempts, last_error, created)
       VALUES (${nextRowIdSql('sync_outbox')}, ?, ?, ?, 'delete', 'parked', 1, ?, ?)`,
    ).run(op.dataset_uuid, op.record_uuid, op.top_record_uuid, error, now());
  }

  /** A failure that a later pass retries. */
  failed(id: number, error: string): void {
    this.q('UPDATE sync_outbox SET attempts = attempts + 1, last_error = ? WHERE id = ?').run(error, id);
  }

  /** A field changed on both sides: its unsent operations wait for the user's choice. */
  parkField(record: string, field: string): void {
    this.q(
      `UPDATE sync_outbox SET state = 'conflict', last_error = 'changed on the server too: see conflicts', attempts = attempts + 1
            WHERE record_uuid = ? AND field_uuid = ? AND op IN ('value', 'option') AND state = 'pending'`,
    ).run(record, field);
  }

  /** The unsent operations of these records wait in a conflict (a child the server deleted). */
  holdTree(records: readonly string[], error: string): void {
    this.q(
      `UPDATE sync_outbox SET state = 'conflict', last_error = ?, attempts = attempts + 1
        WHERE state = 'pending' AND record_uuid IN (SELECT value FROM json_each(?))`,
    ).run(error, JSON.stringify(records));
  }

  setChildInfo(id: number, info: ChildInfo): void {
    this.q('UPDATE sync_outbox SET payload = ? WHERE id = ?').run(JSON.stringify(info), id);
  }

  /**
   * `record|field` keys with an unsent, conflicting or refused local change under a top-level
   * record: a pull keeps them as they are here (a refused edit stays, listed with why, rather
   * than being undone by the server's copy without a word).
   */
  pendingFieldKeys(top: string): Set<string> {
    const rows = this.q(
      `SELECT record_uuid, field_uuid FROM sync_outbox WHERE top_record_uuid = ?
        AND (state IN ('pending', 'conflict') OR (state = 'parked' AND undone = 0))`,
    ).all(top) as { record_uuid: string; field_uuid: string }[];
    return new Set(rows.map((r) => `${r.record_uuid}|${r.field_uuid}`));
  }

  /** Per `record|field`: the options whose operation waits in a conflict, under a top-level record. */
  heldOptions(top: string): Map<string, Set<string>> {
    const rows = this.q(
      `SELECT record_uuid, field_uuid, item_uuid FROM sync_outbox WHERE top_record_uuid = ? AND op = 'option' AND state = 'conflict'`,
    ).all(top) as { record_uuid: string; field_uuid: string; item_uuid: string }[];
    const out = new Map<string, Set<string>>();
    for (const r of rows) {
      const k = `${r.record_uuid}|${r.field_uuid}`;
      out.set(k, (out.get(k) ?? new Set<string>()).add(r.item_uuid));
    }
    return out;
  }

  /**
   * The value, option and public-date edits under a top-level record that the server refused,
   * oldest first: a pull that replaces the record with the server's copy writes them again here.
   * One a newer operation on the same target replaced, or parked before that rule (`undone`,
   * migration 024), is left out: writing it would bring back a value the user moved on from.
   */
  refusedEdits(
    top: string,
  ): { op: string; dataset_uuid: string; record_uuid: string; field_uuid: string; item_uuid: string; payload: string | null }[] {
    return this.q(
      `SELECT op, dataset_uuid, record_uuid, field_uuid, item_uuid, payload FROM sync_outbox o
        WHERE top_record_uuid = ? AND state = 'parked' AND undone = 0 AND op IN ('value', 'option', 'public')
          AND NOT EXISTS (SELECT 1 FROM sync_outbox n WHERE n.record_uuid = o.record_uuid AND n.op = o.op
            AND n.field_uuid = o.field_uuid AND n.item_uuid = o.item_uuid AND n.id > o.id)
        ORDER BY id`,
    ).all(top) as {
      op: string;
      dataset_uuid: string;
      record_uuid: string;
      field_uuid: string;
      item_uuid: string;
      payload: string | null;
    }[];
  }

  /** Anything under this record the server does not have yet (so a pull must merge, not replace). */
  hasLocalOnlyState(top: string, topRid: number | undefined): boolean {
    if (this.q(`SELECT 1 FROM sync_outbox WHERE top_record_uuid = ? AND state IN ('pending', 'conflict') LIMIT 1`).get(top)) return true;
    if (this.q('SELECT 1 FROM sync_conflicts WHERE top_record_uuid = ? AND resolved IS NULL LIMIT 1').get(top)) return true;
    return (
      topRid !== undefined &&
      !!this.q(
        'SELECT 1 FROM files f JOIN records r ON r.rid = f.record_rid WHERE r.top_rid = ? AND f.content_hash IS NOT NULL LIMIT 1',
      ).get(topRid)
    );
  }

  // Conflicts and the removed-on-server bin

  /** `item`: the file a file conflict is about ('' for a field's value or options). */
  recordConflict(dataset: string, top: string, c: ConflictDraft, item = ''): void {
    this.q(
      `INSERT INTO sync_conflicts (id, dataset_uuid, record_uuid, top_record_uuid, field_uuid, item_uuid, field_name, base, mine, theirs, created)
      VALUES (${nextRowIdSql('sync_conflicts')}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (record_uuid, field_uuid, item_uuid) WHERE resolved IS NULL DO UPDATE SET theirs = excluded.theirs, mine = excluded.mine`,
    ).run(dataset, c.record, top, c.field, item, c.name, c.base, c.mine, c.theirs, now());
  }

  markRemoved(local: string, dataset: string): number {
    return this.q('INSERT OR IGNORE INTO sync_removed (record_uuid, dataset_uuid, detected) VALUES (?, ?, ?)').run(local, dataset, now())
      .changes;
  }
}

/** An operation the server refused (state `parked`), as "needs attention" acts on it. */
export interface ParkedRow {
  id: number;
  op: string;
  dataset_uuid: string;
  record_uuid: string;
  top_record_uuid: string;
  field_uuid: string;
  item_uuid: string;
  undone: number;
}

/** Sync state across remotes, for status and conflict resolution. */
export class SyncLedger {
  constructor(private readonly db: Db) {}
  private q(sql: string) {
    return shaped(this.db)(sql);
  }

  syncedDatasets(): string[] {
    return this.q('SELECT DISTINCT dataset_uuid FROM sync_datasets').pluck().all() as string[];
  }

  datasets(): SyncDataset[] {
    return this.q(
      `SELECT remote_id, dataset_uuid, cursor, last_pull, last_push, EXISTS (SELECT 1 FROM sync_files_offline o
         WHERE o.remote_id = d.remote_id AND o.dataset_uuid = d.dataset_uuid) AS keep_files_offline
       FROM sync_datasets d ORDER BY remote_id, dataset_uuid`,
    )
      .all()
      .map((r) => ({ ...(r as SyncDataset), keep_files_offline: (r as { keep_files_offline: number }).keep_files_offline === 1 }));
  }

  counts(): { pending: number; conflicts: number; parked: number } {
    return this.q(
      `SELECT
        (SELECT COUNT(*) FROM sync_outbox WHERE state = 'pending') AS pending,
        (SELECT COUNT(*) FROM sync_conflicts WHERE resolved IS NULL) AS conflicts,
        (SELECT COUNT(*) FROM sync_outbox WHERE state = 'parked') AS parked`,
    ).get() as { pending: number; conflicts: number; parked: number };
  }

  parked(): ParkedOperation[] {
    return this.q(
      `SELECT o.id, o.op, o.record_uuid, o.field_uuid, o.last_error, o.attempts, f.original_name AS file_name FROM sync_outbox o
        LEFT JOIN files f ON o.op IN ('file_upload', 'file_meta', 'file_delete') AND f.uuid = o.item_uuid
        WHERE o.state = 'parked' ORDER BY o.id`,
    ).all() as ParkedOperation[];
  }

  parkedRow(id: number): ParkedRow | undefined {
    return this.q(
      "SELECT id, op, dataset_uuid, record_uuid, top_record_uuid, field_uuid, item_uuid, undone FROM sync_outbox WHERE id = ? AND state = 'parked'",
    ).get(id) as ParkedRow | undefined;
  }

  /**
   * A refused operation queued again as it is ("retry"), unless a pending one of the same key
   * already waits (the partial UNIQUE index allows one): answers whether it was queued.
   */
  requeue(id: number): boolean {
    return (
      this.q(
        `UPDATE sync_outbox SET state = 'pending', last_error = NULL WHERE id = ? AND state = 'parked' AND NOT EXISTS
          (SELECT 1 FROM sync_outbox o, sync_outbox me WHERE me.id = ? AND o.state = 'pending' AND o.record_uuid = me.record_uuid
           AND o.op = me.op AND o.field_uuid = me.field_uuid AND o.item_uuid = me.item_uuid)`,
      ).run(id, id).changes > 0
    );
  }

  /** A refused operation no longer listed ("discard", or replaced). */
  closeParked(id: number): void {
    this.q("UPDATE sync_outbox SET state = 'done' WHERE id = ? AND state = 'parked'").run(id);
  }

  removed(): RemovedOnServer[] {
    return this.q('SELECT record_uuid, dataset_uuid, detected FROM sync_removed ORDER BY detected').all() as RemovedOnServer[];
  }

  conflicts(): SyncConflict[] {
    return this.q(
      'SELECT id, dataset_uuid, record_uuid, field_uuid, field_name, item_uuid, base, mine, theirs, created FROM sync_conflicts WHERE resolved IS NULL ORDER BY id',
    ).all() as SyncConflict[];
  }

  openConflict(id: number): (SyncConflict & { top_record_uuid: string }) | undefined {
    return this.q('SELECT * FROM sync_conflicts WHERE id = ? AND resolved IS NULL').get(id) as
      (SyncConflict & { top_record_uuid: string }) | undefined;
  }

  closeConflict(id: number, choice: string): void {
    this.q('UPDATE sync_conflicts SET resolved = ?, resolution = ? WHERE id = ?').run(now(), choice, id);
  }

  /** The field's unsent, conflicting or refused local operations are dropped (the choice replaces them). */
  dropFieldOps(record: string, field: string): void {
    this.q(
      `UPDATE sync_outbox SET state = 'done' WHERE record_uuid = ? AND field_uuid = ? AND op IN ('value', 'option') AND state IN ('pending', 'conflict', 'parked')`,
    ).run(record, field);
  }

  /** The options of a field whose operation waits in a conflict. */
  conflictOptions(record: string, field: string): string[] {
    return this.q(
      `SELECT DISTINCT item_uuid FROM sync_outbox WHERE record_uuid = ? AND field_uuid = ? AND op = 'option' AND state = 'conflict'`,
    )
      .pluck()
      .all(record, field) as string[];
  }

  /** Those options' unsent, conflicting or refused operations are dropped (the choice replaces them). */
  dropOptionOps(record: string, field: string, items: string[]): void {
    const drop = this.q(
      `UPDATE sync_outbox SET state = 'done' WHERE record_uuid = ? AND field_uuid = ? AND item_uuid = ? AND op = 'option'
         AND state IN ('pending', 'conflict', 'parked')`,
    );
    for (const item of items) drop.run(record, field, item);
  }

  /** Every unsent, conflicting or refused operation of these records is dropped (a choice replaces them). */
  dropRecordOps(records: readonly string[]): void {
    this.q(
      `UPDATE sync_outbox SET state = 'done' WHERE state IN ('pending', 'conflict', 'parked')
        AND record_uuid IN (SELECT value FROM json_each(?))`,
    ).run(JSON.stringify(records));
  }

  /** The record's unsent, conflicting or refused public-date operations are dropped ("keep theirs"). */
  dropPublicOps(record: string): void {
    this.q(
      `UPDATE sync_outbox SET state = 'done' WHERE record_uuid = ? AND op = 'public' AND state IN ('pending', 'conflict', 'parked')`,
    ).run(record);
  }

  /** Puts the record's conflicting public-date operation back in the queue, leased on `over`. */
  forcePublic(record: string, over: string): void {
    this.q(
      `UPDATE sync_outbox SET state = 'pending', last_error = NULL, payload = json_set(COALESCE(payload, '{}'), '$.over', ?)
        WHERE record_uuid = ? AND op = 'public' AND state = 'conflict'`,
    ).run(over, record);
  }

  /** Queues a value pushed over exactly the server value `over` (force-with-lease). */
  forceValue(
    c: { dataset_uuid: string; record_uuid: string; top_record_uuid: string; field_uuid: string },
    value: unknown,
    over: string,
  ): void {
    this.q(
      `INSERT INTO sync_outbox (id, dataset_uuid, record_uuid, top_record_uuid, op, field_uuid, payload, created)
       VALUES (${nextRowIdSql('sync_outbox')}, ?, ?, ?, 'value', ?, ?, ?)`,
    ).run(c.dataset_uuid, c.record_uuid, c.top_record_uuid, c.field_uuid, JSON.stringify({ value, over }), now());
  }

  /**
   * Puts the field's conflicting option operations back in the queue, leased on `over`; one
   * superseded by a newer pending operation on the same option is dropped instead.
   */
  forceOptions(record: string, field: string, over: string): void {
    const rows = this.q(
      `SELECT id, payload FROM sync_outbox WHERE record_uuid = ? AND field_uuid = ? AND op = 'option' AND state = 'conflict'`,
    ).all(record, field) as { id: number; payload: string | null }[];
    const OnOff = z.object({ on: z.boolean() });
    for (const r of rows) {
      const parsed = OnOff.safeParse(r.payload === null ? null : JSON.parse(r.payload));
      if (!parsed.success) continue;
      const requeued = this.q(
        `UPDATE sync_outbox SET state = 'pending', last_error = NULL, payload = ? WHERE id = ? AND NOT EXISTS
          (SELECT 1 FROM sync_outbox o, sync_outbox me WHERE me.id = ? AND o.state = 'pending' AND o.record_uuid = me.record_uuid
           AND o.op = me.op AND o.field_uuid = me.field_uuid AND o.item_uuid = me.item_uuid)`,
      ).run(JSON.stringify({ on: parsed.data.on, over }), r.id, r.id).changes;
      if (!requeued) this.q("UPDATE sync_outbox SET state = 'done' WHERE id = ?").run(r.id);
    }
  }
}
