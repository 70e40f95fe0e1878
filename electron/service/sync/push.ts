import { formatTimestamp } from '../../../shared/dates.js';
import { normalizeRecord } from '../../../shared/legacy.js';
import type { OdrClient } from '../../../shared/client/odrClient.js';
import type { OdrRecord } from '../../../shared/schemas/record.js';
import type { SaveRecord } from '../../../shared/schemas/requests.js';
import { RecordImporter } from '../domain/import/importRecords.js';
import { restoreRecord } from '../domain/records/trash.js';
import type { EngineContext } from './engineContext.js';
import { publicConflict, pushConflict, selectedHere } from './merge.js';
import { convergeOps } from './converge.js';
import { collectOutbox, recreateRestored } from './outbox.js';
import type { Puller } from './pull.js';
import { RemoteError } from './remoteClient.js';
import { FilePusher, isFileOp } from './filePush.js';
import type { OutboxOp } from '../store/syncState.js';
import { syncFileStore } from '../store/syncFiles.js';
import { syncOutbox } from '../store/syncOutbox.js';
import { refetchableTransaction, transaction } from '../store/tx.js';
import { findRecord } from '../../../shared/recordTree.js';
import { guardFor, guardFromRead, guardKey, guardKind, selectionAfter, type Guard, type GuardedOp } from './guards.js';

/** Top-level records pushed at once; each record's own operations stay in order. */
export const PUSH_CONCURRENCY = 4;

export interface PushStats {
  pushed: number;
  created: number;
  parked: number;
  conflicts: number;
}

/** Here to the server: the outbox replayed, several top-level records at a time. */
export class Pusher {
  private readonly files: FilePusher;

  constructor(
    private readonly x: EngineContext,
    private readonly puller: Puller,
    private readonly concurrency = PUSH_CONCURRENCY,
  ) {
    this.files = new FilePusher(x);
  }

  /**
   * Replays pending operations. Per top-level record in order: creates first settle their identity
   * (reconciling an ambiguous earlier attempt before any retry); writes are checked against a fresh
   * server copy. A transient failure ends the pass once the records in flight have settled (the next
   * pass resumes); so does a super-user demoted meanwhile (each operation reads the user again).
   */
  async push(onOp?: () => void): Promise<PushStats> {
    const stats: PushStats = { pushed: 0, created: 0, parked: 0, conflicts: 0 };
    try {
      return await this.pushAll(stats, onOp);
    } finally {
      this.x.done.pushed += stats.pushed + stats.created;
    }
  }

  private async pushAll(stats: PushStats, onOp?: () => void): Promise<PushStats> {
    const x = this.x;
    x.recheck();
    collectOutbox(x.d.ctx);
    const byTop = new Map<string, OutboxOp[]>();
    const mine = new Set(x.state.datasets());
    for (const op of x.state.pending()) {
      if (!mine.has(op.dataset_uuid)) continue; // another remote's

      const list = byTop.get(op.top_record_uuid) ?? [];
      list.push(op);
      byTop.set(op.top_record_uuid, list);
    }
    if (!byTop.size) return stats;
    // The server's copies applied after each write are read with its current template: a field
    // it removed must already be marked removed here, or applying its copy would clear the values
    // kept under it (docs/sync.md §4). The first records' server copies are read meanwhile
    // (pushTop): only their reading overlaps the templates' round trip, nothing that uses them.
    const templates = (async () => {
      for (const ds of new Set([...byTop.values()].map((l) => l[0]!.dataset_uuid))) await this.puller.pullTemplate(ds);
    })();
    // A failure reaches every record's pushTop, which then sends nothing: the pass fails with it.
    templates.catch(() => undefined);
    const importer = new RecordImporter(x.d, x.user, false);
    await settleAll([...byTop], this.concurrency, ([top, list]) => this.pushTop(top, list, stats, importer, templates, onOp));
    if (stats.pushed || stats.created) x.state.pushed();
    return stats;
  }

  private async pushTop(
    top: string,
    list: OutboxOp[],
    stats: PushStats,
    importer: RecordImporter,
    templates: Promise<void>,
    onOp?: () => void,
  ): Promise<void> {
    const x = this.x;
    // A record whose first operation writes a field needs the server's copy first: its read is
    // under way while the templates are, and normalised only once their field types are in.
    // Not where the server guards that write (known from its last answer): it needs no read.
    const firstR = isFieldWrite(list[0]!) && !this.guarded(list[0]!) ? x.state.remoteOf(top) : undefined;
    const early = firstR ? x.remote.recordRaw(firstR) : null;
    early?.catch(() => undefined); // awaited below, unless the templates fail first
    await templates;
    // Idempotent writes (value, option, public, delete) are marked done together with the
    // server's copy after them, in one commit; after a crash in between they are sent again,
    // which changes nothing. Creates record their progress at once (see pushCreate).
    const settle = (ops: OutboxOp[], after: OdrRecord | null, dataset: string) => {
      // Read before the transaction, from the render cache the conflict check filled; nothing
      // runs in between (one synchronous step), and marking operations done changes no record.
      const local = after ? x.localRecord(top) : undefined;
      // Without its own fsync (store/tx.ts): lost to a power cut, the writes are sent again.
      refetchableTransaction(x.db, () => {
        for (const op of ops) x.state.done(op);
        if (!after) return;
        // Edits made here while the writes were on their way become operations now (after the
        // sent ones are done, so they are not taken for sent): the record is then merged, and
        // those edits wait for the next pass instead of being replaced by the server's answer.
        collectOutbox(x.d.ctx);
        // A public date's key is `record|` (its operation has no field).
        const written = new Set(ops.filter((o) => o.op === 'value' || o.op === 'public').map((o) => `${o.record_uuid}|${o.field_uuid}`));
        this.puller.applyRemote(after, dataset, importer, local, undefined, written);
      });
    };
    let fresh: OdrRecord | null = null;
    const sent: OutboxOp[] = [];
    // The answer to the last write, when it is the top-level record: the server's copy after
    // our writes, without reading it again.
    let answer: unknown;
    // Selections this record's guarded option writes left on the server (guards.ts).
    const guarded = new Map<string, string[] | null>();
    // What this record's guarded writes left on the server, by `record|field`.
    const held = new Map<string, Guard>();
    for (const op of list) {
      answer = undefined;
      try {
        // Each operation acts for the user: read again first (EngineContext.recheck). Lost, the
        // ones sent are settled below and the rest stay in the outbox.
        x.recheck();
        if (op.op === 'create') {
          if (await this.pushCreate(op)) stats.created++;
          fresh = null;
        } else if (op.op === 'create_child') {
          await this.pushCreateChild(op);
          stats.created++;
          fresh = null;
        } else if (op.op === 'converge') {
          const topR = x.state.remoteOf(top);
          if (!topR || !x.state.remoteOf(op.record_uuid)) continue; // its create has not gone through yet
          const queued = new Set(list.map((o) => o.id));
          list.push(...this.converge(op, top, topR).filter((o) => !queued.has(o.id)));
          continue;
        } else if (op.op === 'delete') {
          const r = x.state.remoteOf(op.record_uuid);
          if (r) {
            await x.remote
              .call((c) => c.deleteRecords([r]), true)
              .catch((e: unknown) => {
                if (!(e instanceof RemoteError && e.kind === 'gone')) throw e;
              });
            // Done at once, not with the record's other writes: a restore from now on must see
            // the server's copy gone (outbox.ts). Sent again after a crash, it changes nothing.
            transaction(x.db, () => {
              x.state.dropBase(r);
              x.state.done(op);
            });
            // Restored here while the delete was on its way.
            if (x.d.store.byUuid(op.record_uuid)) recreateRestored(x.d.ctx, op.dataset_uuid, op.record_uuid, top);
          }
          sent.push(op);
        } else if (isFileOp(op)) {
          const topR = x.state.remoteOf(top);
          if (!topR || !x.state.remoteOf(op.record_uuid)) continue; // its create has not gone through yet
          const r = await this.files.push(op, top, topR);
          fresh = null;
          if (r.outcome === 'conflict') {
            stats.conflicts++;
            continue;
          }
          answer = r.answer;
          if (r.outcome === 'sent') sent.push(op);
        } else {
          const topR = x.state.remoteOf(top);
          const recR = x.state.remoteOf(op.record_uuid);
          if (!topR || !recR) continue; // its create has not gone through yet
          // Superseded here by a write of the sync itself (a merge applied the server's change to
          // this option, a conflict kept theirs): sending it would undo that change unseen.
          const superseded = (local: OdrRecord | null) =>
            op.op === 'option' && selectedHere(local, op.record_uuid, op.field_uuid, op.item_uuid) !== op.payload.on;
          const base = x.state.base(topR);
          // A server that guards its writes checks the field against the base itself, in its write
          // transaction: no read first (docs/sync.md §5). Refused (409), it changed there since:
          // read and checked as on any server, so a conflict is found as it always was.
          const guard = !fresh && !(early && op === list[0]) && this.guarded(op) ? guardFor(op, recR, base, guarded) : undefined;
          if (guard) {
            if (op.op === 'option' && superseded(x.localRecord(top))) {
              sent.push(op);
              continue;
            }
            const key = guardKey(op, recR);
            try {
              answer = await this.guardedWrite(op, recR, guard, held);
              const left = held.get(key);
              guarded.set(key, left && 'selection' in left ? left.selection : null);
              sent.push(op);
              stats.pushed++;
              onOp?.();
              continue;
            } catch (e) {
              // 404 on a child: the server may have deleted it. Read and checked below like a 409.
              // 400: a guard the field's current type refuses (its type changed there since the
              // base), a refusal, not the real servers' "400 on a child is done" (childWrite).
              const childGone = e instanceof RemoteError && e.kind === 'gone' && recR !== topR;
              if (!(e instanceof RemoteError && (e.status === 409 || e.status === 400)) && !childGone) throw e;
              guarded.set(key, null);
              held.delete(key); // the read below says what it holds now
            }
          }
          // Read before any write of this pass: it stands only for the first operation's copy.
          if (!fresh && early && op === list[0]) fresh = normalizeRecord(await early, x.types);
          fresh ??= await x.remote.record(topR, x.types);
          // A child the server deleted: its edit is no change of a field there. It stays unsent;
          // the merge of the server's copy below (settle) holds it in a deleted-child conflict.
          if (recR !== topR && base && findRecord(base, recR) && !findRecord(fresh, recR)) continue;
          const local = x.localRecord(top);
          if (superseded(local)) {
            sent.push(op);
            continue;
          }
          const c =
            op.op === 'public'
              ? publicConflict({
                  record: op.record_uuid,
                  fresh: findRecord(fresh, recR),
                  base: base ? findRecord(base, recR) : undefined,
                  local: local ? findRecord(local, op.record_uuid) : undefined,
                  over: op.payload.over,
                })
              : pushConflict({
                  record: op.record_uuid,
                  field: op.field_uuid,
                  // Several options: each one is its own set operation (docs/sync.md §5).
                  ...(op.op === 'option' && !x.single(op.field_uuid) ? { item: op.item_uuid } : {}),
                  fresh,
                  remoteKey: `${recR}|${op.field_uuid}`,
                  base,
                  local,
                  over: op.payload.over,
                });
          if (c) {
            x.state.recordConflict(op.dataset_uuid, top, c);
            x.state.park(op, 'changed on the server too: see conflicts', 'conflict');
            stats.conflicts++;
            continue;
          }
          // A server that guards its writes gets this one guarded with the field as just read: no
          // window between the check and the write. Refused again, it changed there once more: the
          // operation waits for the next pass (one more read and write per pass, no loop here).
          const fenced = this.guarded(op) ? guardFromRead(op, recR, fresh, held) : undefined;
          if (fenced) {
            if (holdsOurs(fenced, op)) {
              sent.push(op); // already there: a write would only go over a change made since
              continue;
            }
            try {
              answer = await this.guardedWrite(op, recR, fenced, held);
            } catch (e) {
              if (e instanceof RemoteError && e.status === 409) continue;
              throw e;
            }
            sent.push(op);
          } else if (op.op === 'value') {
            const value = op.payload.value;
            answer = await this.childWrite(op, top, (c) => c.setValue(recR, op.field_uuid, value === null ? '' : value));
          } else if (op.op === 'option') {
            const on = op.payload.on;
            answer = await this.childWrite(op, top, (c) => c.setOption(recR, op.field_uuid, op.item_uuid, on));
          } else {
            const date = op.payload.public_date;
            answer = await this.childWrite(op, top, (c) =>
              c.setPublic({
                user_email: x.remoteUser,
                dataset_uuid: op.dataset_uuid,
                record_uuid: recR,
                ...(date ? { public_date: date } : {}),
              }),
            );
          }
          sent.push(op);
        }
        stats.pushed++;
        onOp?.();
      } catch (e) {
        if (sent.length) settle(sent, null, op.dataset_uuid);
        if (!(e instanceof RemoteError)) throw e;
        if (e.kind === 'permanent' || (e.kind === 'gone' && op.op !== 'delete')) {
          if (op.op === 'delete') this.refusedDelete(op, e.message);
          else x.state.park(op, e.message);
          stats.parked++;
          sent.length = 0;
          continue;
        }
        x.state.failed(op.id, e.message);
        throw e;
      }
    }
    const topR = x.state.remoteOf(top);
    let after: OdrRecord | null = null;
    if (topR && x.d.store.byUuid(top)) {
      try {
        // The server's copy after our writes: its other changes come in now, then it is the base.
        const answered = answer as { record_uuid?: unknown } | undefined;
        after = answered?.record_uuid === topR ? normalizeRecord(answered, x.types) : await x.remote.record(topR, x.types);
      } catch (e) {
        if (!(e instanceof RemoteError && e.kind === 'gone')) throw e;
      }
    }
    // The server's copy is applied for the user too. Checked after the last read, so the check
    // and the write are one synchronous step: a demotion during that read stops it here.
    try {
      x.recheck();
    } catch (e) {
      settle(sent, null, list[0]!.dataset_uuid);
      throw e;
    }
    settle(sent, after, list[0]!.dataset_uuid);
    this.puller.announce();
  }

  /**
   * A record written without field-level log entries (an import): the operations that make the
   * server's copy equal to ours go into the outbox, durably, in place of this one, and are
   * returned to be sent in this pass like any other.
   */
  private converge(op: Extract<OutboxOp, { op: 'converge' }>, top: string, topR: string): OutboxOp[] {
    const x = this.x;
    const here = x.localRecord(top);
    const node = here ? findRecord(here, op.record_uuid) : undefined;
    const baseTop = x.state.base(topR);
    const base = baseTop ? (findRecord(x.localised(baseTop), op.record_uuid) ?? null) : null;
    const schema = x.d.schema();
    const files = syncFileStore(x.db);
    const ops = node
      ? convergeOps({
          local: node,
          base,
          live: (f) => schema.fieldsByUuid.has(f),
          remoteFile: (u) => files.remoteOf(u),
          fileMapped: (u) => files.mapRow(u) !== undefined,
          localFile: (r) => files.localOf(x.state.remoteId, r),
        })
      : [];
    const outbox = syncOutbox(x.db);
    const at = new Date().toISOString();
    transaction(
      x.db,
      () => {
        for (const o of ops) {
          if (o.op === 'file_meta' && files.metaInConflict(o.item)) continue; // joins its open conflict
          outbox.upsert({
            dataset: op.dataset_uuid,
            record: op.record_uuid,
            top,
            op: o.op,
            field: o.field,
            item: o.item,
            payload: o.payload === null ? null : JSON.stringify(o.payload),
            at,
          });
        }
        x.state.done(op);
      },
      'immediate',
    );
    return x.state.pending(op.record_uuid);
  }

  /** Whether the remote said it guards this kind of write (its last answer's header, guards.ts). */
  private guarded(op: OutboxOp): op is GuardedOp {
    const x = this.x;
    return (op.op === 'value' || op.op === 'option' || op.op === 'public') && x.remote.guards.has(guardKind(op, x.boolean));
  }

  /**
   * A value, option or public-date write that holds only while the server has what `guard` says.
   * Never under the real servers' "400 on a child is done" rule (childWrite): only an odr-desktop
   * remote takes guards, and there a 400 is a refusal. `held` learns what the write left.
   */
  private async guardedWrite(op: GuardedOp, recR: string, guard: Guard, held: Map<string, Guard>): Promise<unknown> {
    const x = this.x;
    const key = guardKey(op, recR);
    if ('value' in guard && op.op === 'value') {
      const value = op.payload.value === null ? '' : op.payload.value;
      const answer = await x.remote.call((c) => c.setValue(recR, op.field_uuid, value, guard.value), true);
      held.set(key, { value });
      return answer;
    }
    if ('selection' in guard && op.op === 'option') {
      const on = op.payload.on;
      const answer = await x.remote.call((c) => c.setOption(recR, op.field_uuid, op.item_uuid, on, guard.selection), true);
      held.set(key, { selection: selectionAfter(guard.selection, op.item_uuid, on, x.single(op.field_uuid)) });
      return answer;
    }
    if ('publicDate' in guard && op.op === 'public') {
      const date = op.payload.public_date;
      const answer = await x.remote.call(
        (c) =>
          c.setPublic({
            user_email: x.remoteUser,
            dataset_uuid: op.dataset_uuid,
            record_uuid: recR,
            ...(date ? { public_date: date } : {}),
            expected_public_date: guard.publicDate,
          }),
        true,
      );
      // No date means "now", which only the server's answer (the record written) tells.
      const left = answer._record_metadata._public_date;
      if (left) held.set(key, { publicDate: left });
      else held.delete(key);
      return answer;
    }
    throw new Error(`no guarded write for a ${op.op} operation`);
  }

  /**
   * A write on a record. Real servers apply value, option and publish calls on a child record
   * but answer 400 (docs/odr-server.md §9.4): for a child that answer counts as done, and the top-level
   * record read afterwards shows what the server holds.
   */
  private async childWrite(op: OutboxOp, top: string, fn: (c: OdrClient) => Promise<unknown>): Promise<unknown> {
    try {
      return await this.x.remote.call(fn, true);
    } catch (e) {
      if (e instanceof RemoteError && e.status === 400 && op.record_uuid !== top) return undefined;
      throw e;
    }
  }

  /**
   * The server refused a delete: it keeps the record, so the next pull would bring its copy back
   * here without a word, and without what only this side had (edits not sent before the delete,
   * files). The record is restored here from the trash instead, as the user's own restore would
   * (its edits then converge on the server), and the refusal stays listed under "needs
   * attention". Not restorable (the trash entry expired, its dataset or parent is gone): parked,
   * and the pull brings the server's copy back with that notice.
   */
  private refusedDelete(op: OutboxOp, why: string): void {
    const x = this.x;
    const said = `the server refused to delete this record (${why})`;
    try {
      transaction(
        x.db,
        () => {
          restoreRecord(x.d, x.user, op.record_uuid);
          // The restore drops the delete and queues the record's converge.
          collectOutbox(x.d.ctx);
          x.state.refusedDelete(op, `${said}: it is back here with its changes and files`);
        },
        'immediate',
      );
    } catch (e) {
      x.state.park(op, `${said}: the server's copy comes back here (not restorable here: ${(e as Error).message})`);
    }
  }

  /**
   * A record made here. The request carries a unique `created` stamp and our user, which is
   * the fingerprint: after an ambiguous answer (timeout, reset, 5xx) we look for a record with
   * that stamp before ever sending the create again.
   */
  private async pushCreate(op: Extract<OutboxOp, { op: 'create' }>): Promise<boolean> {
    const x = this.x;
    const row = x.state.idRow(op.record_uuid);
    if (row?.state === 'bound') {
      x.state.done(op);
      return false;
    }
    if (!row && op.payload?.imported) {
      // An imported record may be one the server has (an export of it): then it is that one.
      const there = await x.remote.record(op.record_uuid, x.types).catch((e: unknown) => {
        if (e instanceof RemoteError && e.kind === 'gone') return null;
        throw e;
      });
      if (there) {
        // The export may be older than the server's copy, so the base keeps its files but none
        // of its field data: every field that differs on both sides becomes a conflict instead
        // of the export's values going over newer server edits. One commit: a crash halfway
        // would leave a 'creating' row no stamp search can find, and a duplicate.
        transaction(
          x.db,
          () => {
            x.state.beginCreate(op.record_uuid, new Date().toISOString());
            x.state.bind(op.record_uuid, there.record_uuid);
            x.state.setBase(filesOnly(there));
            x.state.done(op);
          },
          'immediate',
        );
        return false;
      }
    }
    if (row?.state === 'creating' && row.attempted_at) {
      const found = await this.findCreated(op.dataset_uuid, row.attempted_at);
      if (found) {
        x.state.bind(op.record_uuid, found);
        await this.afterCreate(op);
        return true;
      }
    }
    const stamp = formatTimestamp(new Date(Date.now() + Math.floor(Math.random() * 1000) * 1000));
    x.state.beginCreate(op.record_uuid, stamp);
    const local = x.d.store.byUuid(op.record_uuid);
    const rec = await x.remote.call(
      (c) => c.createRecord(op.dataset_uuid, { created: stamp, ...(local ? { public_date: local.public_date } : {}) }),
      true,
    );
    x.state.bind(op.record_uuid, rec.record_uuid);
    await this.afterCreate(op);
    return true;
  }

  private async afterCreate(op: OutboxOp): Promise<void> {
    const x = this.x;
    // The server selects default options on create just as we did: the base starts from its copy.
    x.state.setBase(await x.remote.record(x.state.remoteOf(op.record_uuid)!, x.types));
    x.state.done(op);
  }

  private async findCreated(dataset: string, stamp: string): Promise<string | null> {
    const x = this.x;
    const since = Date.parse(`${stamp.replace(' ', 'T')}Z`) - 10 * 60_000;
    for (const id of await x.remote.modifiedIds(dataset, since)) {
      if (x.state.isMapped(id) || x.state.baseJson(id) !== undefined) continue;
      const r = await x.remote.record(id, x.types).catch(() => null);
      if (r && r._record_metadata._create_date === stamp && r._record_metadata._create_auth) return id;
    }
    return null;
  }

  /** A child record: saved as full state (every existing child listed) with the new one added. */
  private async pushCreateChild(op: Extract<OutboxOp, { op: 'create_child' }>): Promise<void> {
    const x = this.x;
    const info = op.payload;
    const topR = x.state.remoteOf(op.top_record_uuid);
    const parentR = x.state.remoteOf(info.parent_uuid);
    if (!topR || !parentR) throw new RemoteError('transient', 'parent not on the server yet');
    const fresh = await x.remote.record(topR, x.types);
    const kidsOf = (rec: OdrRecord) =>
      (findRecord(rec, parentR)?.records ?? []).filter((c) => c.database_uuid === info.database_uuid).map((c) => c.record_uuid);
    if (x.state.idRow(op.record_uuid)?.state === 'creating' && info.before) {
      const added = kidsOf(fresh).filter((u) => !info.before!.includes(u) && !x.state.isMapped(u));
      if (added.length) {
        x.state.bind(op.record_uuid, added[0]!);
        x.state.done(op);
        return;
      }
    }
    const before = kidsOf(fresh);
    x.state.setChildInfo(op.id, { ...info, before });
    x.state.beginCreate(op.record_uuid, new Date().toISOString());
    await x.remote.call((c) => c.save(fullStateWithNewChild(fresh, parentR, info.database_uuid)), true);
    const after = await x.remote.record(topR, x.types);
    const added = kidsOf(after).filter((u) => !before.includes(u));
    if (!added.length) throw new RemoteError('permanent', 'the server accepted the child record but does not list it');
    x.state.bind(op.record_uuid, added[0]!);
    x.state.setBase(after);
    x.state.done(op);
  }
}

/** Whether the field (or date), as `guard` says the server holds it, already has what `op` writes. */
function holdsOurs(guard: Guard, op: GuardedOp): boolean {
  if (op.op === 'public') return 'publicDate' in guard && !!op.payload.public_date && guard.publicDate === op.payload.public_date;
  if (op.op === 'value') return 'value' in guard && String(guard.value ?? '') === String(op.payload.value ?? '');
  return 'selection' in guard && guard.selection.includes(op.item_uuid) === op.payload.on;
}

/** The operations checked against a fresh server copy before they are sent. */
const isFieldWrite = (op: OutboxOp) => op.op === 'value' || op.op === 'option' || op.op === 'public';

/** The save body real servers need: every existing descendant listed (fact 1), plus the new child. */
export function fullStateWithNewChild(top: OdrRecord, parent: string, database: string): SaveRecord {
  const walk = (r: OdrRecord): SaveRecord => {
    const kids: SaveRecord[] = (r.records ?? []).map(walk);
    if (r.record_uuid === parent) kids.push({ record_uuid: '', database_uuid: database, fields: [] });
    return { record_uuid: r.record_uuid, database_uuid: r.database_uuid, records: kids };
  };
  return walk(top);
}

/**
 * Runs `fn` over `items`, at most `limit` at once. After the first failure no new item starts;
 * those in flight finish (so nothing of this pass runs on into the next), then it is thrown.
 */
async function settleAll<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { e: unknown } | null = null;
  const worker = async () => {
    while (!failure && next < items.length) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (e) {
        failure ??= { e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw (failure as { e: unknown }).e;
}

/** A server copy with its files and structure but no field data: a base that agrees with nothing. */
const filesOnly = (r: OdrRecord): OdrRecord => ({
  ...r,
  fields: r.fields.filter((f) => f.files),
  records: (r.records ?? []).map(filesOnly),
});
