import type { Ctx } from './context.js';
import { transaction, transactionDepth } from '../store/tx.js';

interface Pending {
  fn: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/**
 * The mutation being run in a batch, for work that must follow its fate: what it did becomes
 * durable with the batch's commit, or is undone with its savepoint or the whole batch.
 */
export interface WriteOp {
  /** Runs once the batch holding this op is on disk. */
  onDurable(fn: () => void): void;
  /** Runs when this op's savepoint, or its whole batch, rolls back. */
  onRollback(fn: () => void): void;
  /**
   * Whether the caller runs in the op's own savepoint, not in one nested inside it: only there
   * do the hooks above follow what it did (a nested savepoint can roll back while the op succeeds).
   */
  atOwnLevel(): boolean;
}

class Op implements WriteOp {
  durable: (() => void)[] | null = null;
  rollback: (() => void)[] | null = null;
  constructor(
    private readonly db: Ctx['db'],
    /** The op's savepoint's depth (store/tx.ts `transactionDepth`). */
    private readonly depth: number,
  ) {}
  atOwnLevel(): boolean {
    return transactionDepth(this.db) === this.depth;
  }
  onDurable(fn: () => void): void {
    (this.durable ??= []).push(fn);
  }
  onRollback(fn: () => void): void {
    (this.rollback ??= []).push(fn);
  }
  rolledBack(): void {
    this.rollback?.forEach((fn) => fn());
  }
}

/** How long the recent batch-size peak is remembered once writers go quiet. */
const PEAK_MEMORY_MS = 1000;
/** The longest a mutation waits for company, however slow the disk. */
const MAX_GATHER_MS = 2;

/**
 * Group commit: mutations that arrive while one is being handled share one durable commit.
 * With synchronous=FULL every commit costs a WAL fsync, which caps one-at-a-time writes near
 * the disk's sync rate; concurrent clients (UI, sync, scripts) queue here and each batch pays
 * one fsync. Each mutation runs in its own savepoint, so one that fails is rolled back and
 * rejected alone; no caller hears "done" before its batch is on disk.
 *
 * Gathering: the fsync blocks this thread, so the writers answered by one commit come back
 * together, but a few ticks apart. Flushing at the first of them would split them into a small
 * batch plus a big one that waits a whole fsync, and they stay split. So when recent batches
 * show several concurrent writers, a batch waits (a fraction of the last commit's time, at most
 * MAX_GATHER_MS) until as many as the recent peak have arrived. A lone writer never waits.
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  private timer: NodeJS.Timeout | null = null;
  private peak = 1;
  private peakAt = 0;
  private lastCommitMs = 0;
  private op: Op | null = null;
  batches = 0;
  operations = 0;
  /** Time spent in batches' transactions, commit and its fsync included (ms, for the bench). */
  commitMs = 0;

  constructor(private readonly ctx: Ctx) {}

  /** The mutation running now inside a batch, or null (outside one, nothing it does is staged). */
  get current(): WriteOp | null {
    return this.op;
  }

  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (this.timer && this.queue.length >= this.peak) {
        clearTimeout(this.timer);
        this.timer = null;
        this.flush();
      } else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.gather());
      }
    });
  }

  private gather(): void {
    if (performance.now() - this.peakAt > PEAK_MEMORY_MS) this.peak = 1;
    const wait = Math.min(MAX_GATHER_MS, this.lastCommitMs / 4);
    if (this.queue.length >= this.peak || wait < 0.05) {
      this.flush();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, wait);
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    if (batch.length === 0) return;
    const db = this.ctx.db;
    const outcomes: { ok: boolean; value: unknown }[] = [];
    const ops: Op[] = [];
    const schema = this.ctx.schema;
    const t0 = performance.now();
    try {
      transaction(
        db,
        () => {
          // Each op runs one level below the batch's own transaction, in its savepoint.
          const depth = transactionDepth(db) + 1;
          for (const p of batch) {
            const op = new Op(db, depth);
            const changes = schema.changes;
            this.op = op;
            try {
              // Nested transactions are savepoints.
              outcomes.push({ ok: true, value: transaction(db, p.fn) });
              ops.push(op);
            } catch (e) {
              // Only a template change rolled back leaves a schema that was never committed: a
              // refused write (400, 409) keeps the schema, and with it every cached render.
              if (schema.changes !== changes) schema.invalidate();
              op.rolledBack();
              outcomes.push({ ok: false, value: e });
            } finally {
              this.op = null;
            }
          }
        },
        'immediate',
      );
    } catch (e) {
      schema.invalidate();
      ops.forEach((op) => op.rolledBack());
      for (const p of batch) p.reject(e);
      return;
    } finally {
      const t1 = performance.now();
      this.lastCommitMs = t1 - t0;
      this.commitMs += t1 - t0;
      if (batch.length >= this.peak) {
        this.peak = batch.length;
        this.peakAt = t1;
      }
    }
    for (const op of ops) op.durable?.forEach((fn) => fn());
    this.batches++;
    this.operations += batch.length;
    batch.forEach((op, i) => (outcomes[i]!.ok ? op.resolve(outcomes[i]!.value) : op.reject(outcomes[i]!.value)));
  }
}
