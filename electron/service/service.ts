import path from 'node:path';
import { openDatabase } from './store/db.js';
import { Checkpointer } from './store/checkpointer.js';
import { createCtx, serviceConfig, type Ctx, type ServiceConfig } from './domain/context.js';
import { retireTrashedDatasetIds } from './domain/datasets/trashIds.js';
import { Domain } from './domain/domain.js';
import { generatePassword } from './domain/users.js';
import { settlesWithin, stopJobs } from './domain/jobRunner.js';
import { createApp, stripJsonSuffix, type AppOptions } from './api/app.js';
import type { FastRead } from './api/fastReads.js';
import type { SyncService } from './sync/runner.js';
import { keyFileBox, type SecretBox } from './sync/secrets.js';

export interface ServiceOptions {
  dataDir: string;
  config?: Partial<ServiceConfig>;
  clock?: () => Date;
  nativeBinding?: string;
  /** First run of a new data dir: the super-user to create. */
  admin?: { email?: string; password?: string };
  autoLogin?: boolean;
  static?: AppOptions['static'];
  /** How remote passwords are sealed; default: a key file in the data dir. */
  secrets?: SecretBox;
  /** Live sync of attached remotes in the background (default on; one-shot CLI commands turn it off). */
  liveSync?: boolean;
}

export interface FirstRun {
  email: string;
  /** Set only when the password was generated: shown once, never stored in clear. */
  generatedPassword?: string;
}

export interface Service {
  ctx: Ctx;
  domain: Domain;
  /** `env` carries Node's raw request when hosted by node:http (uploads stream from it). */
  fetch: (req: Request, env?: unknown) => Promise<Response>;
  firstRun: FirstRun | null;
  sync: SyncService;
  /** The start-up sweep of unreferenced file bytes (BlobStore.startUp): how many it removed. */
  blobSweep: Promise<number>;
  /** A record read answered from the render cache without the app, or null (see api/fastReads). */
  fastRead: FastRead;
  /**
   * Stops background work (live sync first, then running jobs are told to stop and awaited,
   * bounded) and closes the database (its WAL is checkpointed and removed). Says whether every
   * job ended within the bound.
   */
  close: () => Promise<{ jobsEnded: boolean }>;
}

export const DEFAULT_ADMIN_EMAIL = 'admin@localhost';

/** How long close() waits for the running jobs it stopped (a sync step mid-request, an import batch). */
const CLOSE_WAIT_MS = 10_000;

/**
 * Opens (or creates) a data dir and returns the service as a fetch handler. Pure Node: no
 * Electron, no socket — hosts decide how requests arrive (node:http, protocol.handle, tests).
 */
export async function createService(opts: ServiceOptions): Promise<Service> {
  // Staged uploads older than this lost their writer with an earlier run (the start-up sweep).
  const openedAt = Date.now();
  // Checked before anything opens: a bad setting leaves nothing to close.
  const config = serviceConfig(opts.config);
  const file = path.join(opts.dataDir, 'odr.sqlite');
  const db = openDatabase(file, { nativeBinding: opts.nativeBinding });
  const checkpointer = new Checkpointer(db, file, opts.nativeBinding);
  checkpointer.start();
  const ctx = createCtx(db, opts.dataDir, config, opts.clock);
  const domain = new Domain(ctx);
  // Once per database, before any request can import: a dataset trashed before migration 028 keeps its ids.
  await retireTrashedDatasetIds(domain);
  domain.search.start();
  let firstRun: FirstRun | null = null;
  if (domain.users.count() === 0) {
    const email = opts.admin?.email || DEFAULT_ADMIN_EMAIL;
    const given = opts.admin?.password;
    const password = given || generatePassword();
    await domain.users.create({ email, password, isSuper: true, firstName: 'Local', lastName: 'Admin' });
    firstRun = { email, ...(given ? {} : { generatedPassword: password }) };
  }
  const { app, sync, fastRead, blobs } = createApp(domain, {
    autoLogin: opts.autoLogin ?? true,
    static: opts.static,
    secrets: opts.secrets ?? keyFileBox(opts.dataDir),
  });
  // Bytes whose removal an earlier run deferred and never finished (it crashed, or closed with
  // some left), or that failed: removed in the background, never on a request's path. After a
  // clean close there are none, and the store is not walked.
  const blobSweep = blobs.startUp(openedAt).catch((e: unknown) => {
    console.warn(`[odr] start-up sweep of unreferenced file bytes stopped: ${(e as Error).message}`);
    return 0;
  });
  if (opts.liveSync ?? true) sync.live.start();
  return {
    ctx,
    domain,
    firstRun,
    sync,
    blobSweep,
    fetch: async (req, env) => app.fetch(stripJsonSuffix(req), env),
    fastRead,
    close: async () => {
      // Jobs are told to stop and no new one can start from here on (a live sync step's file
      // download included); then the live sync step in flight is awaited, then the jobs, both
      // against the same CLOSE_WAIT_MS bound started now. A sync job holding the remote's lock
      // ends early, so the live step waiting for it does too (and, stopped, does no pass).
      const jobsStopped = stopJobs(domain, CLOSE_WAIT_MS);
      const liveEnded = await settlesWithin(sync.live.stop(), CLOSE_WAIT_MS);
      const jobsEnded = await jobsStopped;
      if (!liveEnded)
        console.error(`[odr] closing with a live sync step still running after ${CLOSE_WAIT_MS / 1000} s: it stops on the closed database`);
      if (!jobsEnded)
        console.error(`[odr] closing with jobs still running after ${CLOSE_WAIT_MS / 1000} s: they stop on the closed database`);
      domain.search.stop();
      // A list still streaming to a slow client would read the closed database: cut it now, so
      // its client sees a broken answer rather than one that looks complete.
      for (const s of [...ctx.streams]) s.cut(new Error('the service is closing'));
      // Removals deferred until their commit was durable run now, on the open database; the
      // sweep stops at its next step (what it did not reach, the next start-up sweeps).
      blobs.stopSweep();
      await blobSweep;
      await blobs.settled();
      await checkpointer.stop();
      if (db.open) {
        // With nothing left running, the store holds no bytes a sweep would remove: the next
        // start need not walk it. Set in the same step as the close, so no removal comes between.
        if (liveEnded && jobsEnded) blobs.markCleanClose();
        db.close();
      }
      return { jobsEnded };
    },
  };
}
