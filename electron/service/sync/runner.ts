import type { ParkedOperation, RemovedOnServer, SyncConflict, SyncDataset, SyncRemote, SyncStatus } from '../../../shared/schemas/sync.js';
import type { Domain } from '../domain/domain.js';
import { collectOutbox } from './outbox.js';
import { badRequest, notFound } from '../domain/errors.js';
import type { JobReporter } from '../domain/jobRunner.js';
import type { User } from '../domain/users.js';
import { setValue } from '../domain/records/ops.js';
import { SyncEngine, type SyncSummary } from './engine.js';
import { RemoteClient, RemoteError } from './remoteClient.js';
import type { SecretBox } from './secrets.js';

export interface RemoteRow {
  id: number;
  url: string;
  username: string;
  password_enc: string;
  created: string;
}

const MAX_PASSES = 8;

/** Remotes, their datasets and sync runs: what the CLI, the /local/sync routes and jobs share. */
export class SyncService {
  constructor(private readonly d: Domain, private readonly secrets: SecretBox) {}

  private get db() { return this.d.ctx.db; }

  remotes(): SyncRemote[] {
    return this.db.prepare('SELECT id, url, username, created FROM sync_remotes ORDER BY id').all() as SyncRemote[];
  }

  private remote(id: number): RemoteRow {
    const r = this.db.prepare('SELECT * FROM sync_remotes WHERE id = ?').get(id) as RemoteRow | undefined;
    if (!r) throw notFound('Remote');
    return r;
  }

  /** Adds (or updates) a remote after a successful login; the password is sealed at rest. */
  async addRemote(url: string, username: string, password: string): Promise<number> {
    let base: URL;
    try {
      base = new URL(url);
    } catch {
      throw badRequest(`"${url}" is not a URL (e.g. https://odr.example.org/api/v4)`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw badRequest('The remote URL must be http or https');
    const baseUrl = url.replace(/\/+$/, '');
    try {
      await new RemoteClient(baseUrl, username, password).login();
    } catch (e) {
      throw badRequest(`Cannot log in to ${url}: ${(e as Error).message}`);
    }
    this.db.prepare(`INSERT INTO sync_remotes (url, username, password_enc, created) VALUES (?, ?, ?, ?)
                     ON CONFLICT(url) DO UPDATE SET username = excluded.username, password_enc = excluded.password_enc`)
      .run(baseUrl, username, this.secrets.seal(password), new Date().toISOString());
    return this.db.prepare('SELECT id FROM sync_remotes WHERE url = ?').pluck().get(baseUrl) as number;
  }

  private client(r: RemoteRow): RemoteClient {
    return new RemoteClient(r.url, r.username, this.secrets.open(r.password_enc));
  }

  engine(remoteId: number, user: User): SyncEngine {
    const r = this.remote(remoteId);
    return new SyncEngine(this.d, r.id, this.client(r), user, r.username);
  }

  /** Remote datasets to choose from. */
  remoteDatasets(remoteId: number) {
    return this.client(this.remote(remoteId)).call((c) => c.databases());
  }

  /** What a run needs, checked before a job is started for it: the remote and some dataset. */
  checkRun(remoteId: number, datasets: string[] | undefined): void {
    this.remote(remoteId);
    const known = this.db.prepare('SELECT COUNT(*) FROM sync_datasets WHERE remote_id = ?').pluck().get(remoteId) as number;
    if (!datasets?.length && !known) throw badRequest('Choose at least one remote dataset to sync');
  }

  /** Passes until nothing moves (or a failure that needs a later try). */
  async run(remoteId: number, user: User, datasets: string[] | undefined, r?: JobReporter): Promise<SyncSummary & { passes: number }> {
    const engine = this.engine(remoteId, user);
    if (datasets?.length) for (const ds of datasets) engine.addDataset(ds);
    if (!engine.datasets().length) throw badRequest('Choose at least one remote dataset to sync');
    let total: SyncSummary = { pushed: 0, pulled: 0, created: 0, conflicts: 0, parked: 0, removedOnServer: 0, pending: 0 };
    let steps = 0;
    for (let pass = 1; pass <= MAX_PASSES; pass++) {
      if (r?.cancelled()) break;
      let s: SyncSummary;
      try {
        s = await engine.syncOnce(() => r?.progress(++steps % 1000));
      } catch (e) {
        if (!(e instanceof RemoteError)) throw e;
        total = { ...total, error: `${e.kind}: ${e.message}` };
        if (e.kind === 'auth' || e.kind === 'permanent') return { ...total, passes: pass };
        await new Promise((res) => setTimeout(res, Math.min(2000, 100 * 2 ** pass) * (0.5 + Math.random())));
        continue;
      }
      total = { ...s, pushed: total.pushed + s.pushed, pulled: total.pulled + s.pulled, created: total.created + s.created, removedOnServer: total.removedOnServer + s.removedOnServer };
      delete total.error;
      // Another pass only when this one pushed: what it pulled is stored, and changes made on the
      // server meanwhile are the next sync's (the cursor keeps them).
      if (s.pushed === 0 && s.pending === 0) return { ...total, passes: pass };
    }
    return { ...total, passes: MAX_PASSES };
  }

  status(): SyncStatus {
    const q = <T>(sql: string) => this.db.prepare(sql).all() as T[];
    // Local edits since the last run count as pending too: turn them into operations now.
    const synced = this.db.prepare('SELECT DISTINCT dataset_uuid FROM sync_datasets').pluck().all() as string[];
    if (synced.length) collectOutbox(this.d.ctx, new Set(synced));
    return {
      remotes: this.remotes(),
      datasets: q<SyncDataset>('SELECT remote_id, dataset_uuid, cursor, last_pull, last_push FROM sync_datasets ORDER BY remote_id, dataset_uuid'),
      pending: this.db.prepare("SELECT COUNT(*) FROM sync_outbox WHERE state = 'pending'").pluck().get() as number,
      needsAttention: q<ParkedOperation>("SELECT id, op, record_uuid, field_uuid, last_error, attempts FROM sync_outbox WHERE state = 'parked' ORDER BY id"),
      conflicts: this.conflicts(),
      removedOnServer: q<RemovedOnServer>('SELECT record_uuid, dataset_uuid, detected FROM sync_removed ORDER BY detected'),
    };
  }

  conflicts(): SyncConflict[] {
    return this.db.prepare('SELECT id, dataset_uuid, record_uuid, field_uuid, field_name, base, mine, theirs, created FROM sync_conflicts WHERE resolved IS NULL ORDER BY id').all() as SyncConflict[];
  }

  /**
   * Resolves a conflict: keep theirs (applied here), keep mine (pushed over theirs), or a merged
   * value (applied here and pushed). Nothing else waits on it.
   */
  resolve(id: number, choice: string, merged?: unknown): { resolved: true } {
    const c = this.db.prepare('SELECT * FROM sync_conflicts WHERE id = ? AND resolved IS NULL').get(id) as
      { id: number; dataset_uuid: string; record_uuid: string; top_record_uuid: string; field_uuid: string; mine: string | null; theirs: string | null } | undefined;
    if (!c) throw notFound('Conflict');
    if (choice !== 'mine' && choice !== 'theirs' && choice !== 'merged') throw badRequest('choice must be "mine", "theirs" or "merged"');
    if (choice === 'merged' && (merged === undefined || merged === null || typeof merged === 'object')) throw badRequest('A merged resolution needs a "value"');
    const f = this.d.schema().fieldsByUuid.get(c.field_uuid);
    if (!f) throw notFound('Datafield');
    const raw = (shown: string | null) => (f.type.storage === 'boolean' ? (shown === 'yes' ? 1 : 0) : shown ?? '');
    const user = this.d.users.firstSuperUser()!;
    const at = new Date().toISOString();
    // Pushed over the server value this choice was made against, and only over that one.
    const force = (value: unknown) => {
      this.db.prepare(`UPDATE sync_outbox SET state = 'done' WHERE record_uuid = ? AND field_uuid = ? AND op = 'value' AND state IN ('pending', 'conflict')`).run(c.record_uuid, c.field_uuid);
      this.db.prepare(`INSERT INTO sync_outbox (dataset_uuid, record_uuid, top_record_uuid, op, field_uuid, payload, created) VALUES (?, ?, ?, 'value', ?, ?, ?)`)
        .run(c.dataset_uuid, c.record_uuid, c.top_record_uuid, c.field_uuid, JSON.stringify({ value, over: c.theirs ?? '' }), at);
    };
    this.db.transaction(() => {
      const before = this.d.log.origin;
      this.d.log.origin = 'sync';
      try {
        if (choice === 'theirs') {
          setValue(this.d, user, c.record_uuid, c.field_uuid, raw(c.theirs));
          this.db.prepare(`UPDATE sync_outbox SET state = 'done' WHERE record_uuid = ? AND field_uuid = ? AND op = 'value' AND state IN ('pending', 'conflict')`).run(c.record_uuid, c.field_uuid);
        } else if (choice === 'mine') {
          force(raw(c.mine));
        } else {
          setValue(this.d, user, c.record_uuid, c.field_uuid, merged);
          force(merged);
        }
      } finally {
        this.d.log.origin = before;
      }
      this.db.prepare('UPDATE sync_conflicts SET resolved = ?, resolution = ? WHERE id = ?').run(at, choice, id);
    }).immediate();
    return { resolved: true };
  }
}
