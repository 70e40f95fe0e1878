import type { Domain } from '../domain/domain.js';
import type { User } from '../domain/users.js';
import { EngineContext } from './engineContext.js';
import type { KeptTheirs } from './filePush.js';
import { FileReconciler } from './fileReconcile.js';
import { collectOutbox } from './outbox.js';
import { Puller } from './pull.js';
import { Pusher, type PushStats } from './push.js';
import type { RemoteClient } from './remoteClient.js';
import { SyncLedger, SyncState } from '../store/syncState.js';

export interface SyncSummary {
  pushed: number;
  pulled: number;
  created: number;
  conflicts: number;
  parked: number;
  removedOnServer: number;
  pending: number;
  error?: string;
}

/**
 * One remote, its synced datasets, and the local service: push (push.ts) then pull (pull.ts),
 * with the three-way merge of merge.ts and all state in state.ts. Every local write it makes is
 * logged with origin "sync", so it never echoes back.
 */
export class SyncEngine {
  readonly state: SyncState;
  private readonly x: EngineContext;
  private readonly puller: Puller;
  private readonly pusher: Pusher;
  /** Called after each pass's pulls (datasets kept offline download what came in). */
  afterPull?: () => void;

  constructor(d: Domain, remoteId: number, remote: RemoteClient, user: User, remoteUser: string, concurrency?: number) {
    this.state = new SyncState(d.ctx.db, remoteId);
    this.x = new EngineContext(d, this.state, remote, user, remoteUser);
    this.puller = new Puller(this.x);
    this.pusher = new Pusher(this.x, this.puller, concurrency);
  }

  /** What this engine wrote so far: records pulled, changes pushed. */
  get done(): Readonly<{ pulled: number; pushed: number }> {
    return this.x.done;
  }

  /** Successful answers of the remote so far (RemoteClient.okAnswers). */
  get okAnswers(): number {
    return this.x.remote.okAnswers;
  }

  /** The user it acts for, as last read (EngineContext.recheck). */
  get user() {
    return this.x.user;
  }

  datasets(): string[] {
    return this.state.datasets();
  }

  addDataset(uuid: string): void {
    this.state.addDataset(uuid);
  }

  /** Local edits waiting to be pushed (collected from the change log first). */
  hasPending(): boolean {
    collectOutbox(this.x.d.ctx);
    return this.state.pendingCount() > 0;
  }

  push(onOp?: () => void): Promise<PushStats> {
    return this.pusher.push(onOp);
  }

  pull(dataset: string, onRecord?: () => void) {
    return this.puller.pull(dataset, onRecord);
  }

  /** A server file listed here again (a "keep theirs" after the file was deleted here). */
  restoreFile(kept: KeptTheirs): void {
    new FileReconciler(this.x).insert(kept);
  }

  /** Outbox first, then the server's changes. */
  async syncOnce(onProgress?: (what: string) => void): Promise<SyncSummary> {
    const push = await this.push(() => onProgress?.('push'));
    let pulled = 0;
    let removed = 0;
    for (const ds of this.datasets()) {
      const r = await this.pull(ds, () => onProgress?.('pull'));
      pulled += r.pulled;
      removed += r.removed;
    }
    this.afterPull?.();
    const counts = new SyncLedger(this.x.db).counts();
    return { pushed: push.pushed, created: push.created, pulled, removedOnServer: removed, ...counts };
  }
}
