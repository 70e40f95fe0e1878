import type { Ctx } from '../context.js';
import { bulkIndexStore } from '../../store/bulkIndexes.js';
import { reclaimFreePages } from '../reclaimFreePages.js';
import { searchIndexStore } from '../../store/searchIndex.js';
import { searchSkipsStore } from '../../store/searchSkips.js';
import { buildMatch, parseSearch } from './searchSyntax.js';

const BATCH = 2000;
/** A prefix standing for more indexed terms than this stays a prefix query. */
const EXPANDED = 16;
/** Word expansions kept (least recently used go first): a few hundred bytes each. */
const EXPANSIONS_KEPT = 512;
/**
 * A term in at least this many records gets a skip entry (store/searchSkips.ts). Measured on the
 * bench's 1M database: stepping past a term of 1,024–16,384 records costs what a seek costs
 * (16–18 µs median), past the synthetic data's common words 0.25–4 ms; 146 terms reach 4,096
 * records there (64 at 100k), so the table stays a few KB.
 */
const LONG_DOCS = 4096;
/** A pass over the vocabulary runs in slices of this long, one per event-loop turn. */
const SKIP_SLICE_MS = 12;
/** A new pass once this many changes (or a tenth of the records, when more) were indexed since the last began. */
const SKIP_PASS_CHANGES = 20_000;

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
  /** Batches were indexed since the last finished reclaim: their merges may have freed pages. */
  private merged = false;
  private stopped = false;
  /** A word → the indexed terms it is a prefix of (`expand`), valid while the index cursor is at `expandedAt`. */
  private readonly expansions = new Map<string, string[] | null>();
  private expandedAt = -1;
  /** The skip-list pass under way (`refreshSkips`), if any. */
  private skipping: Promise<void> | null = null;
  /** Documents that make a term long enough for a skip entry (tests lower it). */
  longDocs = LONG_DOCS;
  /** How long one slice of a skip-list pass runs (tests lower it: 0 is one term a slice). */
  skipSliceMs = SKIP_SLICE_MS;

  constructor(private readonly ctx: Ctx) {
    this.s = searchIndexStore(ctx.db);
  }

  /**
   * User input (syntax: searchSyntax.ts) → an FTS5 query that means what `ftsQuery` means, over
   * the index as it is now: a last word's prefix becomes the few indexed terms it stands for,
   * OR-ed (FTS5 streams those in rowid order; a prefix query merges every matching doclist
   * first, so its first page cost as much as all matches). Only plain ASCII words: for them the
   * tokenizer's folding is lower case alone, so the vocabulary lookup is exact; other words stay
   * prefixes. Throws a 400 for a search that only excludes.
   */
  matchQuery(input: string): string | null {
    const parsed = parseSearch(input);
    if (parsed.include.length === 0) return buildMatch(parsed);
    this.catchUp();
    // Expansions hold for one state of the index: whatever was indexed since may add or drop terms.
    const at = this.s.cursor();
    if (at !== this.expandedAt) this.forgetExpansions();
    this.expandedAt = at;
    return buildMatch(parsed, (w) => this.expand(w));
  }

  /**
   * The indexed terms a word is a prefix of (null: more than EXPANDED, or not plain ASCII), kept
   * per word. Finding where a term's entries end in the vocabulary walks its whole doclist (FTS5
   * seeks terms by the page they start on): 1–5 ms for a common word at 1M records, 0.05 ms at
   * 100k. Searches between two writes share words (typing on, adding a word, paging), so each
   * word pays that once per index state.
   */
  private expand(w: string): string[] | null {
    if (!/^[A-Za-z0-9]+$/.test(w)) return null;
    const low = w.toLowerCase();
    const kept = this.expansions.get(low);
    if (kept !== undefined) {
      this.expansions.delete(low);
      this.expansions.set(low, kept);
      return kept;
    }
    const next = low.slice(0, -1) + String.fromCharCode(low.charCodeAt(low.length - 1) + 1);
    const found = this.s.termsBetween(low, next, EXPANDED + 1);
    const terms = found.length > EXPANDED ? null : found;
    this.expansions.set(low, terms);
    while (this.expansions.size > EXPANSIONS_KEPT) this.expansions.delete(this.expansions.keys().next().value!);
    return terms;
  }

  /** Drops every kept word expansion (the next search of each word reads the vocabulary again). */
  forgetExpansions(): void {
    this.expansions.clear();
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
    this.forgetExpansions();
    return rows.length === BATCH;
  }

  /**
   * Brings the index up to date now (searches call this: read-your-writes). It leaves the free
   * pages its merges made to the background tick: giving them back is a write with a full fsync,
   * not something a search should wait for.
   */
  catchUp(): void {
    while (this.step()) this.merged = true;
  }

  /**
   * After a burst of batches: the index's segment merges leave pages free (~1 MB after a 10k
   * import's catch-up), given back in bounded steps (domain/reclaimFreePages.ts). Not while the
   * indexer is held or value indexes are deferred: a bulk import is under way, its dropped
   * indexes' pages are about to be needed again, and it reclaims at its own end. Resolves with
   * whether nothing is left to do; the next tick continues otherwise.
   */
  async reclaim(): Promise<boolean> {
    if (!this.merged) return true;
    const go = () => !this.stopped && this.holds === 0 && bulkIndexStore(this.ctx.db).deferred().length === 0;
    try {
      if (await reclaimFreePages(this.ctx.db, go)) this.merged = false;
    } catch (e) {
      console.error('[odr] search indexer: free pages not reclaimed:', e);
      this.merged = false;
    }
    return !this.merged;
  }

  /**
   * Brings the skip list up to date with the index when it is due: a pass over the vocabulary in
   * slices of SKIP_SLICE_MS. The event loop turns between them, and the background indexer's
   * ticks and searches' catch-ups index batches in between: each is a reindex, whose keep() keeps
   * the entries already written exact, and a slice rewrites only its own span from the
   * vocabulary as it is then. Due when no pass has finished yet (a database from
   * before migration 023, a new one) or after SKIP_PASS_CHANGES changes, or a tenth of the
   * records, were indexed since the last began: a term grows long only by being indexed, and
   * until its entry is written it is stepped past the slow way, still exactly.
   */
  refreshSkips(): Promise<void> {
    if (this.skipping) return this.skipping;
    // The first slice runs before this returns, and may end the pass there: the pass is
    // forgotten once settled, never before it is kept.
    const pass = new Promise<void>((resolve) => {
      const skips = searchSkipsStore(this.ctx.db);
      const go = () => !this.stopped && this.holds === 0;
      const slice = () => {
        try {
          if (go() && this.skipSlice(skips, performance.now() + this.skipSliceMs)) return void setImmediate(slice);
        } catch (e) {
          console.error('[odr] search skip list:', e);
        }
        resolve();
      };
      slice();
    });
    this.skipping = pass;
    void pass.then(() => {
      if (this.skipping === pass) this.skipping = null;
    });
    return pass;
  }

  /**
   * Finishes a due skip-list pass now, in one go, blocking: for tests whose "nothing changed"
   * digests read every table, like `catchUp` for the index.
   */
  settleSkips(): void {
    const skips = searchSkipsStore(this.ctx.db);
    while (this.skipSlice(skips, Infinity));
  }

  /** One slice of the skip-list pass when one is due, until `deadline`; returns whether more remains. */
  private skipSlice(skips: ReturnType<typeof searchSkipsStore>, deadline: number): boolean {
    const p = skips.pass();
    if (p.scan === null) {
      const at = this.s.cursor();
      const due = Math.max(SKIP_PASS_CHANGES, bulkIndexStore(this.ctx.db).recordsStored() / 10);
      if (p.done >= 0 && at - p.done < due) return false;
      return skips.slice({ from: '', began: at, done: p.done }, deadline, this.longDocs);
    }
    return skips.slice({ from: p.scan, began: p.began, done: p.done }, deadline, this.longDocs);
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
    this.stopped = false;
    const tick = () => {
      if (this.running || this.holds > 0) return;
      this.running = true;
      const loop = () => {
        try {
          if (this.timer !== null && this.holds === 0 && this.step()) {
            this.merged = true;
            return void setImmediate(loop);
          }
        } catch (e) {
          console.error('[odr] search indexer:', e);
        }
        // Only after full batches (here or in a search's catch-up): a tick that indexed a few
        // edits leaves too little free to look.
        if (this.timer === null) this.running = false;
        else
          void this.reclaim().finally(() => {
            this.running = false;
            // Outside `running`: a pass takes seconds at 1M terms, and later ticks index
            // batches between its slices (one pass at a time: refreshSkips shares it).
            if (this.timer !== null) void this.refreshSkips();
          });
      };
      loop();
    };
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    // A reclaim between two steps stops there: the database may be closed next.
    this.stopped = true;
  }
}

/** User input → an FTS5 query with every prefix left to FTS5 (the reference `matchQuery` must equal). */
export function ftsQuery(input: string): string | null {
  return buildMatch(parseSearch(input));
}
