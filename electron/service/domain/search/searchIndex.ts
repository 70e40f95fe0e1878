import type { Ctx } from '../context.js';
import { searchIndexStore } from '../../store/searchIndex.js';

const BATCH = 2000;

/**
 * Keeps the full-text index in step with the change log, off the write path: writes stay as
 * fast as before, and the index follows within one tick. Searches call `catchUp()` first, so
 * a user always finds what they just typed.
 */
export class SearchIndex {
  private readonly s: ReturnType<typeof searchIndexStore>;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private holds = 0;

  constructor(private readonly ctx: Ctx) {
    this.s = searchIndexStore(ctx.db);
  }

  /** True when the index has seen every change. */
  current(): boolean {
    return this.s.cursor() >= this.s.lastSeq();
  }

  /** Indexes one batch of pending changes; returns whether more remain. */
  step(): boolean {
    const rows = this.s.changesAfter(this.s.cursor(), BATCH);
    if (rows.length === 0) return false;
    const uuids = [...new Set(rows.flatMap((r) => (r.top_record_uuid ? [r.top_record_uuid] : [])))];
    this.s.reindex(uuids, rows.at(-1)!.seq);
    return rows.length === BATCH;
  }

  /** Brings the index up to date now (searches call this: read-your-writes). */
  catchUp(): void {
    while (this.step()) {
      /* next batch */
    }
  }

  /** Pauses background indexing (bulk imports); the returned function resumes it. */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (!released) this.holds--;
      released = true;
    };
  }

  /** Follows the change log in the background, a batch per tick so requests interleave. */
  start(intervalMs = 250): void {
    const tick = () => {
      if (this.running || this.holds > 0) return;
      this.running = true;
      const loop = () => {
        try {
          if (this.timer !== null && this.holds === 0 && this.step()) return void setImmediate(loop);
        } catch (e) {
          console.error('[odr] search indexer:', e);
        }
        this.running = false;
      };
      loop();
    };
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** User input → an FTS5 query: every word must appear, each as a prefix; no operators leak in. */
export function ftsQuery(input: string): string | null {
  const words = input.normalize('NFKC').match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) return null;
  return words
    .slice(0, 16)
    .map((w) => `"${w.replace(/"/g, '""')}"*`)
    .join(' AND ');
}
