import { LiveSettings, type LiveSettingsRequest, type LiveStatus } from '../../../shared/schemas/sync.js';
import type { Domain } from '../domain/domain.js';
import { badRequest } from '../domain/errors.js';
import type { SyncEngine } from './engine.js';
import { DEFAULT_LIVE, LiveRemote } from './live.js';
import { collectOutbox } from './outbox.js';
import type { SyncLedger } from '../store/syncState.js';
import { metaStore } from '../store/meta.js';

export interface LiveHost {
  remotes(): { id: number; url: string }[];
  /** A fresh engine for the remote (its client logs in on first use), acting for the first super-user. */
  engine(remoteId: number): SyncEngine;
  exclusive<T>(remoteId: number, fn: () => Promise<T>): Promise<T>;
}

const key = (remoteId: number) => `sync_live_${remoteId}`;

/** Live mode of every attached remote: settings (in meta), start and stop, status for the header. */
export class LiveSync {
  private readonly live = new Map<number, LiveRemote>();
  private started = false;
  private readonly onRecords = () => {
    for (const l of this.live.values()) l.localChange();
  };
  private readonly onSuperUser = () => {
    for (const l of this.live.values()) l.superUserAdded();
  };

  constructor(
    private readonly d: Domain,
    private readonly host: LiveHost,
    private readonly ledger: SyncLedger,
  ) {}

  settings(remoteId: number): LiveSettings {
    const raw = metaStore(this.d.ctx.db).get(key(remoteId));
    const parsed = raw === undefined ? null : LiveSettings.safeParse(JSON.parse(raw));
    return parsed?.success ? parsed.data : DEFAULT_LIVE;
  }

  /** Changes a remote's live settings; a running live mode restarts with them. */
  async configure(remoteId: number, change: LiveSettingsRequest): Promise<LiveStatus> {
    const next = { ...this.settings(remoteId), ...change };
    metaStore(this.d.ctx.db).set(key(remoteId), JSON.stringify(next));
    await this.restart(remoteId);
    return this.statusOf(remoteId);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.d.ctx.events.on('records', this.onRecords);
    this.d.ctx.events.on('superUser', this.onSuperUser);
    for (const r of this.host.remotes()) this.launch(r.id, r.url);
  }

  async stop(): Promise<void> {
    this.started = false;
    this.d.ctx.events.off('records', this.onRecords);
    this.d.ctx.events.off('superUser', this.onSuperUser);
    await Promise.all([...this.live.values()].map((l) => l.stop()));
    this.live.clear();
  }

  /** After the remote was (re)attached or its settings changed: a paused live mode starts again. */
  async restart(remoteId: number): Promise<void> {
    await this.live.get(remoteId)?.stop();
    this.live.delete(remoteId);
    const r = this.host.remotes().find((x) => x.id === remoteId);
    if (r && this.started) this.launch(r.id, r.url);
  }

  /** The window regained focus: every live remote pulls now. */
  nudge(): void {
    for (const l of this.live.values()) l.nudge();
  }

  /** Tells listeners (the header) the status may have moved, e.g. after a manual run. */
  announce(remoteId: number): void {
    this.live.get(remoteId)?.emit();
  }

  statuses(): LiveStatus[] {
    return this.host.remotes().map((r) => this.statusOf(r.id, r.url));
  }

  private statusOf(remoteId: number, url?: string): LiveStatus {
    const l = this.live.get(remoteId);
    if (l) return l.status();
    const s = this.settings(remoteId);
    const c = this.counts();
    return {
      remote_id: remoteId,
      url: url ?? this.host.remotes().find((x) => x.id === remoteId)?.url ?? '',
      ...s,
      state: 'off',
      since: null,
      last_sync: null,
      pending: c.pending,
      attention: c.attention,
      reason: s.enabled ? 'live mode is not running in this process' : null,
      next_try: null,
    };
  }

  private counts() {
    // Edits since the last pass count as waiting too: turn them into operations now.
    const synced = this.ledger.syncedDatasets();
    if (synced.length) collectOutbox(this.d.ctx);
    const c = this.ledger.counts();
    return { pending: c.pending, attention: c.conflicts + c.parked };
  }

  private launch(remoteId: number, url: string): void {
    let engine: SyncEngine | null = null;
    const l = new LiveRemote({
      remoteId,
      url,
      settings: this.settings(remoteId),
      engine: () => {
        // Live mode acts for the first super-user: one demoted or removed since the engine was
        // made is not acted for again; the first super-user now is (none: RightLost, the pass
        // waits and tries again).
        if (engine && !this.d.users.get(engine.user.id)?.isSuper) engine = null;
        return (engine ??= this.host.engine(remoteId));
      },
      lock: (fn) => this.host.exclusive(remoteId, fn),
      counts: () => this.counts(),
      onChange: (s) => this.d.ctx.events.emit('sync', s),
      maxBackoffMs: this.d.ctx.config.liveMaxBackoffMs,
    });
    this.live.set(remoteId, l);
    l.start();
  }
}

export function checkRemoteId(raw: string): number {
  const id = Number(raw);
  if (!Number.isInteger(id)) throw badRequest('remote id must be an integer');
  return id;
}
