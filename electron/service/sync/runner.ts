import type {
  LiveSettingsRequest,
  LiveStatus,
  StopSyncingAnswer,
  StopSyncingPreview,
  SyncConflict,
  SyncRemote,
  SyncStatus,
} from '../../../shared/schemas/sync.js';
import type { Domain } from '../domain/domain.js';
import { collectOutbox, recreateRestored } from './outbox.js';
import { syncOutbox } from '../store/syncOutbox.js';
import { badRequest, notFound, OdrError, RightLost } from '../domain/errors.js';
import { stoppedFor } from './actingUser.js';
import { acceptsJobs, assertAcceptsJobs, startJob, type JobReporter } from '../domain/jobRunner.js';
import type { TrackedJob } from '../../../shared/schemas/job.js';
import type { User } from '../domain/users.js';
import { deleteRecords, setOption, setPublicDate, setValue } from '../domain/records/ops.js';
import { PUBLIC_DATE_FIELD, RECORD_DELETED_FIELD, type AttentionAction, type AttentionAnswer } from '../../../shared/schemas/sync.js';
import { attend } from './attention.js';
import { SYSTEM_USER } from '../domain/domain.js';
import type { FieldInfo } from '../domain/schemaCache.js';
import { SyncLedger } from '../store/syncState.js';
import { LiveSync } from './liveSync.js';
import { SyncEngine, type SyncSummary } from './engine.js';
import { RemoteClient, RemoteError, type RemoteSession } from './remoteClient.js';
import type { SecretBox } from './secrets.js';
import type { BlobStore } from '../domain/files/blobStore.js';
import { FileFetcher } from './filePull.js';
import { resolveFileConflict } from './fileConflicts.js';
import { syncRemotes, type RemoteRow } from '../store/syncRemotes.js';
import { transaction } from '../store/tx.js';
import { syncDetach } from '../store/syncDetach.js';

const MAX_PASSES = 8;

/** Remotes, their datasets and sync runs: what the CLI, the /local/sync routes and jobs share. */
export class SyncService {
  private readonly ledger: SyncLedger;
  readonly live: LiveSync;
  /** One sync at a time per remote: live passes and manual runs queue behind each other. */
  private readonly locks = new Map<number, Promise<unknown>>();
  /** Files whose bytes are on a remote only: fetched on first use or kept offline. */
  readonly files: FileFetcher;
  /** One client per remote for file downloads (a login per file would cost more than the file). */
  private readonly fileClients = new Map<number, RemoteClient>();
  /** Per remote, the token its clients share (RemoteClient's `session`): one login, not one per run. */
  private readonly sessions = new Map<number, RemoteSession>();

  constructor(
    private readonly d: Domain,
    private readonly secrets: SecretBox,
    readonly blobs: BlobStore,
  ) {
    this.ledger = new SyncLedger(d.ctx.db);
    this.files = new FileFetcher(d, blobs, (id) => {
      let c = this.fileClients.get(id);
      if (!c) {
        c = this.client(this.remote(id));
        this.fileClients.set(id, c);
      }
      return c;
    });
    this.live = new LiveSync(
      d,
      {
        remotes: () => this.remotes(),
        engine: (id) => {
          const user = this.d.users.firstSuperUser();
          if (!user) throw new RightLost('no super-user is left to sync as');
          return this.engine(id, user);
        },
        exclusive: (id, fn) => this.exclusive(id, fn),
      },
      this.ledger,
    );
  }

  exclusive<T>(remoteId: number, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(remoteId) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.locks.set(remoteId, tail);
    void tail.then(() => {
      if (this.locks.get(remoteId) === tail) this.locks.delete(remoteId);
    });
    return run;
  }

  private get db() {
    return this.d.ctx.db;
  }

  remotes(): SyncRemote[] {
    return syncRemotes(this.db).list();
  }

  /** A remote as a person reads it (its address), e.g. for the job that syncs with it. */
  remoteName(id: number): string {
    const { host, pathname } = new URL(this.remote(id).url);
    return `${host}${pathname.replace(/\/+$/, '')}`;
  }

  private remote(id: number): RemoteRow {
    const r = syncRemotes(this.db).get(id);
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
      // No HTTP answer at all is not a refused login: say which, as the Sync panel shows it.
      const reached = !(e instanceof RemoteError) || e.status !== undefined || e.kind === 'auth';
      throw badRequest(`${reached ? 'Cannot log in to' : 'Cannot reach'} ${url}: ${(e as Error).message}`);
    }
    const id = syncRemotes(this.db).upsert(baseUrl, username, this.secrets.seal(password), new Date().toISOString());
    this.fileClients.delete(id);
    this.sessions.delete(id);
    // Attached again (perhaps with a new password): a live mode paused by a refused login resumes.
    await this.live.restart(id);
    return id;
  }

  private client(r: RemoteRow): RemoteClient {
    let session = this.sessions.get(r.id);
    if (!session) this.sessions.set(r.id, (session = {}));
    return new RemoteClient(r.url, r.username, this.secrets.open(r.password_enc), session);
  }

  /** `concurrency`: top-level records pushed at once (default PUSH_CONCURRENCY). */
  engine(remoteId: number, user: User, concurrency?: number): SyncEngine {
    const r = this.remote(remoteId);
    const engine = new SyncEngine(this.d, r.id, this.client(r), user, r.username, concurrency);
    engine.afterPull = () => this.afterPull(remoteId);
    return engine;
  }

  configureLive(remoteId: number, change: LiveSettingsRequest): Promise<LiveStatus> {
    this.remote(remoteId);
    return this.live.configure(remoteId, change);
  }

  /** Remote datasets to choose from. */
  remoteDatasets(remoteId: number) {
    return this.client(this.remote(remoteId)).call((c) => c.databases());
  }

  /** What a run needs, checked before a job is started for it: the remote and some dataset. */
  checkRun(remoteId: number, datasets: string[] | undefined): void {
    this.remote(remoteId);
    const known = syncRemotes(this.db).datasetCount(remoteId);
    if (!datasets?.length && !known) throw badRequest('Choose at least one remote dataset to sync');
  }

  /** Passes until nothing moves (or a failure that needs a later try). */
  async run(remoteId: number, user: User, datasets: string[] | undefined, r?: JobReporter): Promise<SyncSummary & { passes: number }> {
    try {
      return await this.exclusive(remoteId, () => this.runPasses(remoteId, user, datasets, r));
    } finally {
      this.live.announce(remoteId);
    }
  }

  private async runPasses(
    remoteId: number,
    user: User,
    datasets: string[] | undefined,
    r?: JobReporter,
  ): Promise<SyncSummary & { passes: number }> {
    const engine = this.engine(remoteId, user);
    if (datasets?.length) for (const ds of datasets) engine.addDataset(ds);
    if (!engine.datasets().length) throw badRequest('Choose at least one remote dataset to sync');
    try {
      return await this.passes(engine, r);
    } catch (e) {
      if (!(e instanceof RightLost)) throw e;
      // The job's error, shown as the last sync's outcome.
      const { pulled, pushed } = engine.done;
      throw stoppedFor(e, `${pulled} records were pulled and ${pushed} changes pushed`);
    }
  }

  private async passes(engine: SyncEngine, r?: JobReporter): Promise<SyncSummary & { passes: number }> {
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
      total = {
        ...s,
        pushed: total.pushed + s.pushed,
        pulled: total.pulled + s.pulled,
        created: total.created + s.created,
        removedOnServer: total.removedOnServer + s.removedOnServer,
      };
      delete total.error;
      // Another pass only when this one pushed: what it pulled is stored, and changes made on the
      // server meanwhile are the next sync's (the cursor keeps them).
      if (s.pushed === 0 && s.pending === 0) return { ...total, passes: pass };
    }
    return { ...total, passes: MAX_PASSES };
  }

  /** Top-level datasets synced with some remote. */
  syncedDatasets(): string[] {
    return this.ledger.syncedDatasets();
  }

  status(): SyncStatus {
    // Local edits since the last run count as pending too: turn them into operations now.
    const synced = this.ledger.syncedDatasets();
    if (synced.length) collectOutbox(this.d.ctx);
    return {
      live: this.live.statuses(),
      remotes: this.remotes(),
      datasets: this.ledger.datasets(),
      pending: this.ledger.counts().pending,
      needsAttention: this.ledger.parked(),
      conflicts: this.ledger.conflicts(),
      removedOnServer: this.ledger.removed(),
    };
  }

  /**
   * Keeps a synced dataset's files offline (or stops): the files not here yet download as one
   * tracked job; later pulls start another for new ones (see downloadOffline).
   */
  keepFilesOffline(remoteId: number, dataset: string, keep: boolean, user: User): TrackedJob | null {
    this.remote(remoteId);
    if (!this.files.files.isSynced(remoteId, dataset)) throw notFound('Synced dataset');
    // Its download job could not start: refused before the setting changes.
    if (keep) assertAcceptsJobs(this.d, 'sync_files');
    this.files.files.setKeepOffline(remoteId, dataset, keep);
    return keep ? this.downloadOffline(remoteId, dataset, user) : null;
  }

  /** One download job per dataset at a time; none when nothing is missing. */
  private readonly offlineJobs = new Map<string, TrackedJob>();
  downloadOffline(remoteId: number, dataset: string, user: User): TrackedJob | null {
    const running = this.offlineJobs.get(dataset);
    if (running) return running;
    const missing = this.files.missing(dataset).length;
    if (!missing) return null;
    const job = startJob(this.d, user, { type: 'sync_files', target: dataset, total: missing }, async (r) => {
      try {
        return await this.files.downloadAll(dataset, user, r);
      } finally {
        this.offlineJobs.delete(dataset);
      }
    });
    this.offlineJobs.set(dataset, job);
    return job;
  }

  /**
   * "Stop syncing": the dataset's sync state goes (every remote), in one transaction; its
   * records and files stay, as local data that can then be deleted. Refused while a sync with
   * one of its remotes, or a download of its files, is running: that work would write the
   * state back. The check and the delete run without a pause, so no run starts in between.
   */
  stopSyncing(datasetUuid: string, force: boolean): StopSyncingAnswer {
    const { dt, remotes, files_not_local } = this.syncedDataset(datasetUuid);
    const busy = remotes.find((id) => this.locks.has(id));
    if (busy !== undefined) throw new OdrError(409, `A sync with remote ${busy} is running; stop syncing "${dt.name}" when it has ended`);
    if (this.offlineJobs.has(datasetUuid))
      throw new OdrError(409, `The files of "${dt.name}" are downloading; stop syncing it when the download has ended`);
    // Without the server their bytes are gone for good here: said, and only done when asked for.
    if (files_not_local && !force)
      throw new OdrError(
        409,
        `${files_not_local} files of "${dt.name}" are not on this computer (never downloaded): once it is not synced they can no longer be opened. Keep its files offline first, or stop syncing with force=true to let them go.`,
      );
    const dropped = syncDetach(this.db).detach(dt.id, datasetUuid);
    for (const id of remotes) this.live.announce(id);
    return { dataset_uuid: datasetUuid, ...dropped, files_unavailable: files_not_local };
  }

  /** GET /local/sync/datasets/{uuid}: asked before a stop is confirmed. */
  stopSyncingPreview(datasetUuid: string): StopSyncingPreview {
    return { dataset_uuid: datasetUuid, files_not_local: this.syncedDataset(datasetUuid).files_not_local };
  }

  private syncedDataset(datasetUuid: string) {
    const dt = this.d.schema().datatypesByUuid.get(datasetUuid);
    if (!dt) throw notFound('Datatype');
    if (dt.parentId !== null)
      throw badRequest(`${datasetUuid} is a child dataset: stop syncing its top-level dataset ${dt.top.uuid} instead`);
    const remotes = this.ledger
      .datasets()
      .filter((s) => s.dataset_uuid === datasetUuid)
      .map((s) => s.remote_id);
    if (!remotes.length) throw new OdrError(409, `Dataset "${dt.name}" is not synced with any remote`);
    return { dt, remotes, files_not_local: this.files.missing(datasetUuid).length };
  }

  /** After a pull: datasets kept offline download what the pull listed. */
  afterPull(remoteId: number): void {
    const user = this.d.users.firstSuperUser();
    // While closing no job starts; what is missing stays listed for the next pull.
    if (!user || !acceptsJobs(this.d)) return;
    for (const ds of this.files.files.offlineDatasets(remoteId)) this.downloadOffline(remoteId, ds, user);
  }

  private resolveFile(c: SyncConflict & { top_record_uuid: string }, choice: string, user: User): { resolved: true } {
    const remoteId = this.files.files.remoteOfDataset(c.dataset_uuid);
    const engine = remoteId === null ? null : this.engine(remoteId, user);
    transaction(this.db, () => {
      this.d.log.as('sync', () => resolveFileConflict(this.d, user, this.ledger, c, choice, (kept) => engine?.restoreFile(kept)));
    });
    return { resolved: true };
  }

  conflicts(): SyncConflict[] {
    return this.ledger.conflicts();
  }

  /**
   * A record's public date changed here and on the server: "theirs" sets the server's date here
   * (not pushed back); "mine" sends ours over exactly the date the choice was made against.
   */
  private resolvePublic(c: SyncConflict, choice: string, user: User): { resolved: true } {
    if (choice === 'merged') throw badRequest('A public date conflict is resolved with "mine" or "theirs"');
    return this.asChoice(c.id, choice, () => {
      if (choice === 'theirs') {
        if (c.theirs) setPublicDate(this.d, user, c.dataset_uuid, c.record_uuid, c.theirs);
        this.ledger.dropPublicOps(c.record_uuid);
      } else this.ledger.forcePublic(c.record_uuid, c.theirs ?? '');
    });
  }

  /**
   * A child the server deleted while changes of it waited here: "theirs" deletes it here too (to
   * the record trash); "mine" makes it and its descendants on the server again, with all they
   * hold here (queued as a restore's: creates, then converges). Deleted here meanwhile: closed.
   */
  private resolveDeleted(c: SyncConflict & { top_record_uuid: string }, choice: string, user: User): { resolved: true } {
    if (choice === 'merged') throw badRequest('A child record deleted on the server is resolved with "mine" or "theirs"');
    let orphans: string[] = [];
    const done = this.asChoice(c.id, choice, () => {
      if (!this.d.store.byUuid(c.record_uuid)) return;
      this.ledger.dropRecordOps(
        syncOutbox(this.db)
          .tree(c.record_uuid)
          .map((t) => t.uuid),
      );
      if (choice === 'theirs') orphans = deleteRecords(this.d, user, [c.record_uuid]).orphanCandidates;
      else recreateRestored(this.d.ctx, c.dataset_uuid, c.record_uuid, c.top_record_uuid);
    });
    this.blobs.removeUnreferenced(orphans);
    return done;
  }

  /**
   * "Needs attention": a refused operation retried (queued again; live sync sends it soon) or
   * discarded (dropped, what it changed here set back to the server's last copy).
   */
  attend(id: number, action: AttentionAction, user: User): AttentionAnswer {
    const { orphans, ...answer } = attend(this.d, user, id, action);
    this.blobs.removeUnreferenced(orphans);
    if (action === 'retry') this.live.nudge();
    return answer;
  }

  /** A conflict's choice, written as the sync's own (never pushed back), and the conflict closed: one transaction. */
  private asChoice(id: number, choice: string, fn: () => void): { resolved: true } {
    transaction(
      this.db,
      () => {
        this.d.log.as('sync', fn);
        this.ledger.closeConflict(id, choice);
      },
      'immediate',
    );
    return { resolved: true };
  }

  /**
   * Resolves a conflict: keep theirs (applied here), keep mine (pushed over theirs), or a merged
   * value (applied here and pushed). Nothing else waits on it. "Mine" is pushed over the server
   * value this choice was made against, and only over that one. What the choice writes here is
   * the choosing `user`'s (the change log and history name them), not the sync's own user.
   */
  resolve(id: number, choice: string, user: User, merged?: unknown): { resolved: true } {
    const c = this.ledger.openConflict(id);
    if (!c) throw notFound('Conflict');
    if (choice !== 'mine' && choice !== 'theirs' && choice !== 'merged') throw badRequest('choice must be "mine", "theirs" or "merged"');
    if (c.field_uuid === RECORD_DELETED_FIELD) return this.resolveDeleted(c, choice, user);
    if (c.item_uuid) return this.resolveFile(c, choice, user);
    if (c.field_uuid === PUBLIC_DATE_FIELD) return this.resolvePublic(c, choice, user);
    const f = this.d.schema().fieldsByUuid.get(c.field_uuid);
    if (!f) throw notFound('Datafield');
    const isOptions = f.type.takesOptions;
    if (choice === 'merged' && isOptions) throw badRequest(`"${f.name}" holds options: choose "mine" or "theirs"`);
    if (choice === 'merged' && (merged === undefined || merged === null || typeof merged === 'object'))
      throw badRequest('A merged resolution needs a "value"');
    const theirOptions = isOptions && choice === 'theirs' ? optionsNamed(f, c.theirs) : [];
    const raw = (shown: string | null) => (f.type.storage === 'boolean' ? (shown === 'yes' ? 1 : 0) : (shown ?? ''));
    return this.asChoice(id, choice, () => {
      if (choice === 'theirs') {
        if (isOptions) {
          const rec = this.d.record(c.record_uuid);
          const now = new Set(
            this.d
              .render(rec, { viewer: SYSTEM_USER, now: this.d.now(), apiBase: '' })
              .fields.find((x) => x.field_uuid === c.field_uuid)
              ?.[f.type.storage === 'tags' ? 'tags' : 'values']?.map((o) =>
                'template_tag_uuid' in o ? o.template_tag_uuid : o.template_radio_option_uuid,
              ) ?? [],
          );
          // Several options: only those whose operation waits in the conflict take the server's
          // state; another one changed here since (and maybe sent) stays as it is.
          const held = f.type.single ? [] : this.ledger.conflictOptions(c.record_uuid, c.field_uuid);
          const want = (u: string) => theirOptions.includes(u);
          if (held.length) {
            for (const u of held) if (now.has(u) !== want(u)) setOption(this.d, user, c.record_uuid, c.field_uuid, u, want(u));
            this.ledger.dropOptionOps(c.record_uuid, c.field_uuid, held);
            return;
          }
          for (const u of now) if (!want(u)) setOption(this.d, user, c.record_uuid, c.field_uuid, u, false);
          for (const u of theirOptions) if (!now.has(u)) setOption(this.d, user, c.record_uuid, c.field_uuid, u, true);
        } else {
          setValue(this.d, user, c.record_uuid, c.field_uuid, raw(c.theirs));
        }
        this.ledger.dropFieldOps(c.record_uuid, c.field_uuid);
      } else if (isOptions) {
        this.ledger.forceOptions(c.record_uuid, c.field_uuid, c.theirs ?? '');
      } else {
        const value = choice === 'mine' ? raw(c.mine) : merged;
        if (choice === 'merged') setValue(this.d, user, c.record_uuid, c.field_uuid, merged);
        this.ledger.dropFieldOps(c.record_uuid, c.field_uuid);
        this.ledger.forceValue(c, value, c.theirs ?? '');
      }
    });
  }
}

/** The options (or tags) of a field named as the conflicts view shows them ("a, b"). */
function optionsNamed(f: FieldInfo, shown: string | null): string[] {
  if (!shown) return [];
  const all =
    f.type.storage === 'tags'
      ? f.tags.map((t) => ({ uuid: t.uuid, name: t.name }))
      : f.options.map((o) => ({ uuid: o.uuid, name: o.name }));
  const one = all.find((o) => o.name === shown);
  if (one) return [one.uuid];
  const names = shown.split(', ');
  return all.filter((o) => names.includes(o.name)).map((o) => o.uuid);
}
