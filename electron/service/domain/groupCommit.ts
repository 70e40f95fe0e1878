import type { Ctx } from './context.js';

interface Pending {
  fn: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/**
 * Group commit: mutations that arrive while one is being handled share one durable commit.
 * With synchronous=FULL every commit costs a WAL fsync, which caps one-at-a-time writes near
 * the disk's sync rate; concurrent clients (UI, sync, scripts) queue here and each batch pays
 * one fsync. Each mutation runs in its own savepoint, so one that fails is rolled back and
 * rejected alone; no caller hears "done" before its batch is on disk.
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  batches = 0;
  operations = 0;

  constructor(private readonly ctx: Ctx) {}

  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    const db = this.ctx.db;
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      db.transaction(() => {
        for (const op of batch) {
          try {
            // Nested better-sqlite3 transactions are savepoints.
            outcomes.push({ ok: true, value: db.transaction(op.fn)() });
          } catch (e) {
            this.ctx.schema.invalidate();
            outcomes.push({ ok: false, value: e });
          }
        }
      }).immediate();
    } catch (e) {
      this.ctx.schema.invalidate();
      for (const op of batch) op.reject(e);
      return;
    }
    this.batches++;
    this.operations += batch.length;
    batch.forEach((op, i) => (outcomes[i]!.ok ? op.resolve(outcomes[i]!.value) : op.reject(outcomes[i]!.value)));
  }
}
