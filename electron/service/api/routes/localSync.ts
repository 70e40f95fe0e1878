import { Hono, type MiddlewareHandler } from 'hono';
import {
  type LiveStatus,
  type LiveStatusList,
  type SyncStatus,
  type SyncedDatasets,
  type KeepFilesOfflineAnswer,
  type StopSyncingAnswer,
  type StopSyncingPreview,
  StopSyncingQuery,
  type AttentionAnswer,
  AddRemoteRequest,
  AttentionRequest,
  KeepFilesOfflineRequest,
  LiveSettingsRequest,
  ResolveConflictRequest,
  RunSyncRequest,
} from '../../../../shared/schemas/sync.js';
import type { AppEnv } from '../auth.js';
import { idParam, parsedJson } from '../body.js';
import type { Domain } from '../../domain/domain.js';
import { forbidden } from '../../domain/errors.js';
import { canViewDatatype } from '../../domain/permissions.js';
import { checkRemoteId } from '../../sync/liveSync.js';
import { startJob } from '../../domain/jobRunner.js';
import type { SyncService } from '../../sync/runner.js';

/** Sync with remote ODR servers (README: "Sync"); super-users only, as it acts for the whole data dir. */
export function localSyncRoutes(d: Domain, sync: SyncService) {
  const app = new Hono<AppEnv>();
  const superOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (!c.get('user').isSuper) throw forbidden('Only a super-user can manage sync');
    await next();
  };
  // Not under /sync: every user opens files that only a remote holds.
  app.get('/synced-datasets', (c) => {
    const user = c.get('user');
    const schema = d.schema();
    const now = d.now();
    const out: string[] = [];
    // Every listed dataset, child datasets included, passes the read gate on its own.
    for (const uuid of sync.syncedDatasets()) {
      const dt = schema.datatypesByUuid.get(uuid);
      if (!dt) continue;
      for (const id of schema.subtreeIds(dt)) {
        const each = schema.datatypes.get(id)!;
        if (canViewDatatype(user, each, now)) out.push(each.uuid);
      }
    }
    return c.json({ datasets: out } satisfies SyncedDatasets);
  });
  app.use('/sync', superOnly);
  app.use('/sync/*', superOnly);

  app.get('/sync', (c) => c.json(sync.status() satisfies SyncStatus));
  app.post('/sync/remotes', async (c) => {
    const body = await parsedJson(c, AddRemoteRequest);
    return c.json({ id: await sync.addRemote(body.url, body.username, body.password) });
  });
  app.get('/sync/remotes/:id/datasets', async (c) => c.json(await sync.remoteDatasets(checkRemoteId(c.req.param('id')))));
  // Live mode of one remote: on/off and the pull interval.
  app.put('/sync/remotes/:id/live', async (c) => {
    const id = checkRemoteId(c.req.param('id'));
    const body = await parsedJson(c, LiveSettingsRequest);
    return c.json((await sync.configureLive(id, body)) satisfies LiveStatus);
  });
  // The window regained focus: pull now. Answers at once; progress comes as `sync` events.
  app.post('/sync/focus', (c) => {
    sync.live.nudge();
    return c.json({ live: sync.live.statuses() } satisfies LiveStatusList);
  });
  // Each run is a tracked job ("sync"): progress streams like any other job.
  app.post('/sync/run', async (c) => {
    const body = await parsedJson(c, RunSyncRequest);
    const user = c.get('user');
    sync.checkRun(body.remote_id, body.datasets);
    const job = startJob(d, user, { type: 'sync', target: sync.remoteName(body.remote_id), total: 1000 }, (r) =>
      sync.run(body.remote_id, user, body.datasets, r),
    );
    return c.json(job, 202);
  });
  // Keep a dataset's files offline: the missing ones download now as a tracked job ("sync_files").
  app.put('/sync/files-offline', async (c) => {
    const body = await parsedJson(c, KeepFilesOfflineRequest);
    const job = sync.keepFilesOffline(body.remote_id, body.dataset_uuid, body.keep, c.get('user'));
    return c.json({ keep: body.keep, missing: job?.total ?? 0, job_id: job?.id ?? null } satisfies KeepFilesOfflineAnswer);
  });
  app.get('/sync/datasets/:uuid', (c) => c.json(sync.stopSyncingPreview(c.req.param('uuid')) satisfies StopSyncingPreview));
  app.delete('/sync/datasets/:uuid', (c) => {
    const q = StopSyncingQuery.parse(c.req.query());
    return c.json(sync.stopSyncing(c.req.param('uuid'), q.force === 'true') satisfies StopSyncingAnswer);
  });
  app.post('/sync/attention/:id', async (c) => {
    const id = idParam(c);
    const body = await parsedJson(c, AttentionRequest);
    return c.json(sync.attend(id, body.action, c.get('user')) satisfies AttentionAnswer);
  });
  app.post('/sync/conflicts/:id', async (c) => {
    const id = idParam(c);
    const body = await parsedJson(c, ResolveConflictRequest);
    return c.json(sync.resolve(id, body.choice, c.get('user'), body.value));
  });
  return app;
}
