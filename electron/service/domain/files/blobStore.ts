import { mkdirSync, rmSync } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { fileStore } from '../../store/files.js';
import { metaStore } from '../../store/meta.js';
import { DirSyncs } from './durableFs.js';

/**
 * Per service, not per BlobStore instance (several serve one ctx): a removal through any of
 * them must see every writer's holds.
 */
interface Shared {
  /** Hashes whose bytes are in the store while the row that will reference them is not
   * committed yet (an upload, a sync pull, a thumbnail), with how many writers hold each. */
  inFlight: Map<string, number>;
  /** Deferred removals not finished yet. */
  pending: Set<Promise<unknown>>;
  /** Deferred removal batches that synced the WAL first (tests read it). */
  walSyncs: number;
  /** Hashes looked up against the file rows by removals and sweeps (tests read it). */
  checked: number;
  /** Directories of the store holding names not synced yet (every writer's). */
  dirs: DirSyncs;
  /** Set by close: a start-up sweep stops at its next batch. */
  stopping: boolean;
  /**
   * Bytes nothing references may be left in the store by this run: a sweep under way, stopped
   * early or that kept fresh bytes, or a removal that failed. Close then sets no clean mark, so
   * the next start sweeps.
   */
  leftovers: boolean;
}

/** Hashes a start-up sweep checks per step; it yields to requests between steps. */
const SWEEP_BATCH = 256;
/**
 * Unreferenced bytes written this recently are left by a sweep: an upload in progress (from
 * another process on the same data dir, or one whose hold a future writer forgets) looks the same.
 */
export const SWEEP_FRESH_MS = 5 * 60_000;
/** In `meta` while the store holds nothing a sweep would remove: set by a clean close, taken at open. */
const CLEAN_CLOSE_KEY = 'files_clean_close';
const HEX2 = /^[0-9a-f]{2}$/;
const HASH = /^[0-9a-f]{64}$/;
const sharedOf = new WeakMap<Ctx, Shared>();

/**
 * File bytes live under <data>/files/ab/cd/<sha256>, named by their content hash: equal
 * uploads share one copy, and no user-supplied name ever becomes a path.
 */
export class BlobStore {
  readonly root: string;
  private readonly shared: Shared;

  constructor(private readonly ctx: Ctx) {
    this.root = path.join(ctx.dataDir, 'files');
    mkdirSync(path.join(this.root, 'tmp'), { recursive: true });
    let shared = sharedOf.get(ctx);
    if (!shared)
      sharedOf.set(
        ctx,
        (shared = {
          inFlight: new Map(),
          pending: new Set(),
          walSyncs: 0,
          checked: 0,
          dirs: new DirSyncs(),
          stopping: false,
          leftovers: false,
        }),
      );
    this.shared = shared;
  }

  pathOf(hash: string): string {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`not a content hash: ${hash}`);
    return path.join(this.root, hash.slice(0, 2), hash.slice(2, 4), hash);
  }

  dirOf(hash: string): string {
    return path.dirname(this.pathOf(hash));
  }

  /**
   * The store's directory syncs: a writer that moved bytes in flushes them before the commit of
   * a row that names them (ingest.ts); writers at the same time share one flush.
   */
  get dirs(): DirSyncs {
    return this.shared.dirs;
  }

  tmpPath(name: string): string {
    return path.join(this.root, 'tmp', name);
  }

  /**
   * Marks bytes as about to be referenced: removeUnreferenced leaves them alone until
   * `release`. Taken before the bytes land in the store (ingest.ts), released by the writer
   * once its row commit has settled, either way.
   */
  hold(hash: string): void {
    const held = this.shared.inFlight;
    held.set(hash, (held.get(hash) ?? 0) + 1);
  }

  release(hashes: Iterable<string>): void {
    const held = this.shared.inFlight;
    for (const h of hashes) {
      const n = (held.get(h) ?? 0) - 1;
      if (n > 0) held.set(h, n);
      else held.delete(h);
    }
  }

  /**
   * A writer is done with bytes it held, its row commit settled either way: releases them and
   * removes whichever nothing references now (the commit failed, or a delete meanwhile left them).
   */
  letGo(hashes: readonly string[]): void {
    this.release(hashes);
    this.removeUnreferenced(hashes);
  }

  /** How many deferred removals made earlier commits durable first (tests read it). */
  get walSyncCount(): number {
    return this.shared.walSyncs;
  }

  /** Settles once every deferred removal asked for so far has run. */
  async settled(): Promise<void> {
    while (this.shared.pending.size) await Promise.all(this.shared.pending);
  }

  /**
   * Deletes the bytes of hashes no file row references any more (and no writer is about to).
   * Called inside a transaction (a sync pull deleting files), it waits until that transaction
   * has ended: deleting the bytes of a row the transaction then rolls back would leave a file
   * without its content. Answers how many it removed now (0 when deferred).
   */
  removeUnreferenced(hashes: Iterable<string>): number {
    // Deferred past a close: the bytes stay, as they would had the app stopped a moment earlier.
    if (!this.ctx.db.open) {
      this.shared.leftovers = true;
      return 0;
    }
    if (this.ctx.db.inTransaction) {
      const later = [...hashes];
      // A macrotask, not a microtask: a transaction held across an await would re-queue forever.
      if (later.length) {
        const run = new Promise<void>((r) => setImmediate(r))
          .then(() => this.removeDeferred(later))
          // Nobody awaits this: a failure leaves the bytes (a leak, never lost content).
          .catch((e: unknown) => {
            this.shared.leftovers = true;
            console.warn(`[odr] kept unreferenced file bytes: ${(e as Error).message}`);
          })
          .finally(() => this.shared.pending.delete(run));
        this.shared.pending.add(run);
      }
      return 0;
    }
    let removed = 0;
    for (const h of this.unreferenced(hashes)) {
      rmSync(this.pathOf(h), { force: true });
      removed++;
    }
    return removed;
  }

  /** One query for the lot: the hashes no writer holds and no row references. */
  private unreferenced(hashes: Iterable<string>): string[] {
    const loose = [...hashes].filter((h) => !this.shared.inFlight.has(h));
    this.shared.checked += loose.length;
    const referenced = fileStore(this.ctx.db).referencedOf(loose);
    return loose.filter((h) => !referenced.has(h));
  }

  /** Hashes looked up against the file rows so far (tests read it). */
  get checkedCount(): number {
    return this.shared.checked;
  }

  /**
   * Start-up: the full sweep runs only when the last run did not close cleanly (a crash, a power
   * cut, a close that left bytes behind); its mark is taken here, so a crash of this run leaves
   * none. Staged upload leftovers (one directory) are removed either way.
   */
  async startUp(startedAt: number): Promise<number> {
    const clean = metaStore(this.ctx.db).take(CLEAN_CLOSE_KEY) !== undefined;
    const removed = clean ? 0 : await this.sweep(startedAt);
    return removed + (await this.sweepStaged(startedAt));
  }

  /**
   * Close, just before the database closes: marks the store clean when this run can have left
   * nothing a sweep would remove (no writer holding bytes, no removal pending or failed, no sweep
   * unfinished), and otherwise removes any mark another run set meanwhile. Answers whether it marked.
   */
  markCleanClose(): boolean {
    const sh = this.shared;
    if (!this.ctx.db.open) return false;
    const meta = metaStore(this.ctx.db);
    if (sh.leftovers || sh.pending.size || sh.inFlight.size) {
      // The mark is one per data dir: another run on it (the CLI beside the app) may have set
      // it since this run's start took it. Declining takes it, so the next start sweeps.
      meta.take(CLEAN_CLOSE_KEY);
      return false;
    }
    meta.set(CLEAN_CLOSE_KEY, new Date().toISOString());
    return true;
  }

  /**
   * The full sweep: removes the bytes no file row references and no writer holds (removals a
   * crash or a close cut short, or that failed), except those written since SWEEP_FRESH_MS
   * before `startedAt`. Off the request path: one directory or SWEEP_BATCH hashes per step (one
   * query each), a yield to the event loop between steps; the candidates are removed as any
   * deferred removal (the WAL synced first, checked again). Stops early once `stopSweep()` was
   * called (close). Answers how many blobs it removed.
   */
  async sweep(startedAt: number): Promise<number> {
    this.shared.leftovers = true;
    let kept = false;
    let removed = 0;
    const batch: string[] = [];
    const fresh = async (h: string) => {
      const s = await stat(this.pathOf(h)).catch(() => null);
      const young = s !== null && s.mtimeMs >= startedAt - SWEEP_FRESH_MS;
      kept ||= young;
      return young;
    };
    const flush = async () => {
      if (batch.length) removed += await this.removeDurably(batch.splice(0), fresh);
      await nextTurn();
    };
    const list = (dir: string) => readdir(dir).catch(() => [] as string[]);
    for (const a of (await list(this.root)).filter((n) => HEX2.test(n))) {
      for (const b of (await list(path.join(this.root, a))).filter((n) => HEX2.test(n))) {
        if (this.shared.stopping) return removed;
        for (const h of await list(path.join(this.root, a, b))) {
          if (!HASH.test(h) || h.slice(0, 2) !== a || h.slice(2, 4) !== b) continue;
          batch.push(h);
          if (batch.length >= SWEEP_BATCH) {
            await flush();
            if (this.shared.stopping) return removed;
          }
        }
      }
    }
    await flush();
    // Fresh bytes kept: the next start looks at them again.
    if (!this.shared.stopping && !kept) this.shared.leftovers = false;
    return removed;
  }

  /** Staged upload leftovers written before `startedAt`: they lost their writer with the last run. */
  private async sweepStaged(startedAt: number): Promise<number> {
    let removed = 0;
    const tmp = path.join(this.root, 'tmp');
    for (const n of await readdir(tmp).catch(() => [] as string[])) {
      if (this.shared.stopping) break;
      const p = path.join(tmp, n);
      const s = await stat(p).catch(() => null);
      if (s?.isFile() && s.mtimeMs < startedAt) {
        rmSync(p, { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** Close: a sweep under way stops at its next step; removals already deferred still run. */
  stopSweep(): void {
    this.shared.stopping = true;
  }

  /**
   * The transaction that unreferenced these bytes may have committed without an fsync (a sync
   * pull's refetchable commit, synchronous=NORMAL): after a power cut its row could come back
   * while the unlink survived. Syncing the -wal file first makes every earlier commit durable
   * (a checkpoint that emptied it synced the database first).
   */
  private removeDeferred(hashes: string[]): Promise<number> {
    if (!this.ctx.db.open || this.ctx.db.inTransaction) return Promise.resolve(this.removeUnreferenced(hashes));
    return this.removeDurably(hashes);
  }

  /**
   * Each hash is checked once; only the candidates (none, mostly) are checked again after the
   * WAL sync, since a writer may have taken or referenced one meanwhile. `keep`: candidates to
   * leave all the same.
   */
  private async removeDurably(hashes: string[], keep?: (hash: string) => Promise<boolean>): Promise<number> {
    let candidates = this.unreferenced(hashes);
    if (keep) {
      const kept = await Promise.all(candidates.map(keep));
      candidates = candidates.filter((_, i) => !kept[i]);
    }
    if (!candidates.length) return 0;
    const wal = await open(`${this.ctx.db.name}-wal`, 'r').catch(() => null);
    if (wal) {
      try {
        await wal.datasync();
      } catch {
        // Not known durable: the bytes stay (a leak, never a row without its content).
        this.shared.leftovers = true;
        return 0;
      } finally {
        await wal.close();
      }
    }
    this.shared.walSyncs++;
    return this.removeUnreferenced(candidates);
  }
}
