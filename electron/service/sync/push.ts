import { RecordImporter } from '../domain/import/importRecords.js';
import type { OutboxOp } from '../store/syncState.js';
import type { EngineContext } from './engineContext.js';
import { FilePusher, isFileOp } from './filePush.js';
import type { GuardedOp } from './guards.js';
import { collectOutbox } from './outbox.js';
import type { Puller } from './pull.js';
import { expandConverge } from './pushConverge.js';
import { copyAfterCut, settleCut } from './pushCut.js';
import { pushCreate, pushCreateChild } from './pushCreate.js';
import { pushDelete, refusedDelete } from './pushDelete.js';
import { isGuarded, pushGuardedFirst } from './pushGuarded.js';
import type { TopPass, WriteOutcome } from './pushPass.js';
import { pushReadFirst } from './pushReadFirst.js';
import { settleTop } from './pushSettle.js';
import { RemoteError } from './remoteClient.js';

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
    const firstR = isFieldWrite(list[0]!) && !isGuarded(x, list[0]!) ? x.state.remoteOf(top) : undefined;
    const early = firstR ? x.remote.recordRaw(firstR) : null;
    early?.catch(() => undefined); // awaited below, unless the templates fail first
    await templates;
    const p: TopPass = {
      x,
      puller: this.puller,
      importer,
      top,
      list,
      early,
      fresh: null,
      answer: undefined,
      sent: [],
      superseded: new Set(),
      guarded: new Map(),
      held: new Map(),
    };
    // The answer to the last operation the server took: its copy, should the push be cut.
    let lastSent: unknown;
    for (const op of list) {
      p.answer = undefined;
      try {
        // Each operation acts for the user: read again first (EngineContext.recheck). Lost, the
        // ones sent are settled below and the rest stay in the outbox.
        x.recheck();
        if (op.op === 'create') {
          if (await pushCreate(x, op)) stats.created++;
          p.fresh = null;
        } else if (op.op === 'create_child') {
          await pushCreateChild(x, op);
          stats.created++;
          p.fresh = null;
        } else if (op.op === 'converge') {
          const topR = x.state.remoteOf(top);
          if (!topR || !x.state.remoteOf(op.record_uuid)) continue; // its create has not gone through yet
          const queued = new Set(list.map((o) => o.id));
          list.push(...expandConverge(x, op, top, topR).filter((o) => !queued.has(o.id)));
          continue;
        } else if (op.op === 'delete') {
          await pushDelete(x, op, top);
          p.sent.push(op);
          lastSent = undefined;
        } else if (isFileOp(op)) {
          const topR = x.state.remoteOf(top);
          if (!topR || !x.state.remoteOf(op.record_uuid)) continue; // its create has not gone through yet
          const r = await this.files.push(op, top, topR);
          p.fresh = null;
          if (r.outcome === 'conflict') {
            stats.conflicts++;
            continue;
          }
          p.answer = r.answer;
          if (r.outcome === 'sent') {
            p.sent.push(op);
            lastSent = r.answer;
          }
        } else {
          const outcome = await fieldWrite(p, op);
          if (outcome === 'conflict') stats.conflicts++;
          if (outcome === 'written' || outcome === 'already' || outcome === 'superseded') p.sent.push(op);
          // Only a write answers with the server's copy; an 'already' one keeps the last copy known.
          if (outcome === 'written') lastSent = p.answer;
          if (outcome === 'superseded') p.superseded.add(op.id);
          if (outcome !== 'written') continue;
        }
        stats.pushed++;
        onOp?.();
      } catch (e) {
        if (p.sent.length) settleCut(p, op.dataset_uuid, await copyAfterCut(p, lastSent, e));
        if (!(e instanceof RemoteError)) throw e;
        if (e.kind === 'permanent' || (e.kind === 'gone' && op.op !== 'delete')) {
          if (op.op === 'delete') refusedDelete(x, op, e.message);
          else x.state.park(op, e.message);
          stats.parked++;
          p.sent.length = 0;
          continue;
        }
        x.state.failed(op.id, e.message);
        throw e;
      }
    }
    await settleTop(p);
  }
}

/** A value, option or public-date write: guarded without a read where it can be, else read first. */
async function fieldWrite(p: TopPass, op: GuardedOp): Promise<WriteOutcome> {
  const topR = p.x.state.remoteOf(p.top);
  const recR = p.x.state.remoteOf(op.record_uuid);
  if (!topR || !recR) return 'waits'; // its create has not gone through yet
  const base = p.x.state.base(topR);
  return (await pushGuardedFirst(p, op, recR, topR, base)) ?? (await pushReadFirst(p, op, recR, topR, base));
}

/** The operations checked against a fresh server copy before they are sent. */
const isFieldWrite = (op: OutboxOp) => op.op === 'value' || op.op === 'option' || op.op === 'public';

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
