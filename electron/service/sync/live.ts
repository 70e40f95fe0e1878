import type { LiveSettings, LiveState, LiveStatus } from '../../../shared/schemas/sync.js';
import type { SyncEngine } from './engine.js';
import { RightLost } from '../domain/errors.js';
import { stoppedFor } from './actingUser.js';
import { RemoteError } from './remoteClient.js';
import { DEFAULT_CONFIG } from '../domain/context.js';

/** Local edits are pushed this long after the last one (debounced). */
export const PUSH_DELAY_MS = 2000;
export const DEFAULT_LIVE: LiveSettings = { enabled: true, pull_seconds: 30 };
/** A Retry-After longer than this is not waited for in full. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

export interface LiveDeps {
  remoteId: number;
  url: string;
  settings: LiveSettings;
  /** The engine for this remote, kept across passes (one login, prepared statements). */
  engine: () => SyncEngine;
  /** Runs `fn` with no other sync of this remote running (manual runs take the same lock). */
  lock: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Local changes not yet on the server, and items waiting for a person. */
  counts: () => { pending: number; attention: number };
  onChange: (s: LiveStatus) => void;
  /** Retries back off up to this (ServiceConfig.liveMaxBackoffMs). */
  maxBackoffMs: number;
}

type Kind = 'push' | 'full';

/** Exponential backoff with jitter (0.5–1×) up to `maxMs`, a Retry-After the server asked for taking precedence. */
export function retryDelay(
  failures: number,
  retryAfterMs: number | null,
  random = Math.random,
  maxMs = DEFAULT_CONFIG.liveMaxBackoffMs,
): number {
  if (retryAfterMs !== null && retryAfterMs > 0) return Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  const ceiling = Math.min(maxMs, 1000 * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling * (0.5 + random() / 2));
}

/**
 * Live (proxy) mode for one remote: local writes never wait on the network; they are pushed in
 * the background shortly after the last edit. The server's changes are pulled on a timer, when
 * the window regains focus, and as soon as an unreachable remote answers again. A refused login
 * pauses it, with the reason, until the remote is attached again.
 */
export class LiveRemote {
  private state: LiveState = 'online';
  private since: string | null = null;
  private lastSync: string | null = null;
  private reason: string | null = null;
  private nextTry: Date | null = null;
  /** Passes in a row the network failed (unreachable, 5xx, reset): the offline backoff. */
  private failures = 0;
  /**
   * Passes in a row stopped for want of a super-user: the pause's own backoff. Not the network's
   * doing, so it neither grows nor takes the offline count; a promotion starts it again.
   */
  private pauses = 0;
  private running = false;
  private queued: Kind | null = null;
  private pushTimer: NodeJS.Timeout | null = null;
  private pullTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private current: Promise<void> = Promise.resolve();

  constructor(private readonly deps: LiveDeps) {
    if (!deps.settings.enabled) this.state = 'off';
  }

  get settings(): LiveSettings {
    return this.deps.settings;
  }

  start(): void {
    if (!this.deps.settings.enabled) return;
    this.schedulePull();
    this.trigger('full');
  }

  /** Stops timers and waits for a pass in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimers();
    await this.current;
  }

  /** A local write happened (or a pull stored something; a push then finds nothing to do). */
  localChange(): void {
    if (this.stopped || this.state === 'off' || this.halted()) return;
    if (this.pushTimer) clearTimeout(this.pushTimer);
    this.pushTimer = setTimeout(() => {
      this.pushTimer = null;
      // Offline, or waiting for a super-user: the retry timer owns the next try; the count of
      // waiting changes is news.
      if (this.state === 'offline' || this.state === 'paused') this.emit();
      else this.trigger('push');
    }, PUSH_DELAY_MS);
    this.pushTimer.unref();
  }

  /** The window regained focus, or someone asked: pull now (an offline remote is tried now). */
  nudge(): void {
    if (this.stopped || this.state === 'off' || this.halted()) return;
    this.trigger('full');
  }

  /**
   * Someone was made a super-user: a pause for want of one tries again now instead of at its
   * backoff (up to `maxBackoffMs`). A pass under way runs once more after it, in case it is
   * about to stop for a demotion the promotion made good.
   */
  superUserAdded(): void {
    if (this.stopped || this.state === 'off' || this.halted()) return;
    this.pauses = 0;
    if (this.running || this.state === 'paused') this.trigger('full');
  }

  status(): LiveStatus {
    const { pending, attention } = this.deps.counts();
    return {
      remote_id: this.deps.remoteId,
      url: this.deps.url,
      ...this.deps.settings,
      state: this.state,
      since: this.since,
      last_sync: this.lastSync,
      pending,
      attention,
      reason: this.reason,
      next_try: this.nextTry?.toISOString() ?? null,
    };
  }

  /**
   * Paused until the remote is attached again (a refused login): no retry is due. Paused for a
   * lost right retries (next_try set), and focus, edits and a queued pass still act on it.
   */
  private halted(): boolean {
    return this.state === 'paused' && this.nextTry === null;
  }

  emit(): void {
    this.deps.onChange(this.status());
  }

  private clearTimers(): void {
    for (const t of [this.pushTimer, this.pullTimer, this.retryTimer]) if (t) clearTimeout(t);
    this.pushTimer = this.pullTimer = this.retryTimer = null;
  }

  private schedulePull(): void {
    if (this.pullTimer) clearInterval(this.pullTimer);
    this.pullTimer = null;
    const s = this.deps.settings.pull_seconds;
    if (s <= 0) return;
    this.pullTimer = setInterval(() => {
      if (this.state === 'online') this.trigger('full');
    }, s * 1000);
    this.pullTimer.unref();
  }

  private trigger(kind: Kind): void {
    if (this.stopped) return;
    if (this.running) {
      if (this.queued !== 'full') this.queued = kind;
      return;
    }
    this.current = this.pass(kind);
  }

  private async pass(kind: Kind): Promise<void> {
    this.running = true;
    try {
      await this.deps.lock(async () => {
        // Queued behind a sync job while the service closed: no pass on a closing database.
        if (this.stopped) return;
        const engine = this.deps.engine();
        if (!engine.datasets().length) return;
        if (kind === 'push' && !engine.hasPending()) return; // nothing to say: no "syncing" flicker
        // Only a pass that goes to the server replaces the retry: one that returned above (a
        // push queued behind a failed pass, with nothing to send) left an offline remote with no
        // next try at all.
        if (this.retryTimer) clearTimeout(this.retryTimer);
        this.retryTimer = null;
        this.setState('syncing');
        const before = { ...engine.done };
        const answers = engine.okAnswers;
        try {
          if (kind === 'push') await engine.push();
          else await engine.syncOnce();
        } catch (e) {
          if (!(e instanceof RightLost)) throw e;
          // Stopped midway by a demotion, yet the server answered: no longer offline in a row.
          if (engine.okAnswers > answers) this.failures = 0;
          const pulled = engine.done.pulled - before.pulled;
          throw stoppedFor(e, `${pulled} records were pulled and ${engine.done.pushed - before.pushed} changes pushed`);
        }
        this.failures = this.pauses = 0;
        this.lastSync = new Date().toISOString();
        this.reason = null;
        this.since = null;
        this.nextTry = null;
        this.setState('online');
      });
    } catch (e) {
      this.failed(e);
    } finally {
      this.running = false;
    }
    const next = this.queued;
    this.queued = null;
    if (next && !this.stopped && !this.halted()) this.trigger(next);
  }

  private failed(e: unknown): void {
    const message = e instanceof Error ? e.message : String(e);
    if (e instanceof RemoteError && (e.kind === 'auth' || e.kind === 'permanent')) {
      // Not something waiting fixes: live mode stops here until the remote is attached again.
      this.since = new Date().toISOString();
      this.reason = e.kind === 'auth' ? `the server refused the login: ${message}` : message;
      this.nextTry = null;
      this.clearTimers();
      this.setState('paused');
      return;
    }
    if (e instanceof RightLost) {
      // Not the remote's doing: the super-user it acted for is one no more. Paused, saying so;
      // the next try acts for the first super-user then (the engine is made again), and with
      // none it keeps waiting, backing off, as for an unreachable remote.
      this.retryLater(message, ++this.pauses, null);
      this.setState('paused');
      return;
    }
    // Unreachable, 5xx, reset: everything stays queued; try again later, sooner if asked.
    this.retryLater(message, ++this.failures, e instanceof RemoteError ? (e.retryAfterMs ?? null) : null);
    this.setState('offline');
  }

  /** `inARow`: failures of this kind in a row, this one included. */
  private retryLater(message: string, inARow: number, retryAfterMs: number | null): void {
    this.since ??= new Date().toISOString();
    this.reason = message;
    const delay = retryDelay(inARow, retryAfterMs, Math.random, this.deps.maxBackoffMs);
    if (this.retryTimer) clearTimeout(this.retryTimer); // one next try: this one
    this.nextTry = new Date(Date.now() + delay);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.trigger('full');
    }, delay);
    this.retryTimer.unref();
  }

  private setState(s: LiveState): void {
    this.state = s;
    this.emit();
  }
}
