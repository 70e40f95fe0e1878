import { z } from 'zod';
import { Int } from './common.js';

// The local /local/sync routes (README: "Sync"): one definition for the service, the renderer
// and the tests.

export const AddRemoteRequest = z.object({
  url: z.string({ error: 'url is required' }).min(1, 'url is required'),
  username: z.string({ error: 'username is required' }).min(1, 'username is required'),
  password: z.string({ error: 'password is required' }).min(1, 'password is required'),
});
export type AddRemoteRequest = z.infer<typeof AddRemoteRequest>;

export const KeepFilesOfflineRequest = z.object({
  remote_id: z.number({ error: 'remote_id must be an integer' }).int('remote_id must be an integer'),
  dataset_uuid: z.string({ error: 'dataset_uuid is required' }).min(1, 'dataset_uuid is required'),
  keep: z.boolean({ error: 'keep must be true or false' }),
});
export type KeepFilesOfflineRequest = z.infer<typeof KeepFilesOfflineRequest>;

/** The answer to a keep-files-offline choice: the download job started for it, if any. */
export const KeepFilesOfflineAnswer = z.object({ keep: z.boolean(), missing: Int, job_id: Int.nullable() });
export type KeepFilesOfflineAnswer = z.infer<typeof KeepFilesOfflineAnswer>;

export const RunSyncRequest = z.object({
  remote_id: z.number({ error: 'remote_id must be an integer' }).int('remote_id must be an integer'),
  datasets: z.array(z.string(), { error: 'datasets must be an array of uuids' }).optional(),
});
export type RunSyncRequest = z.infer<typeof RunSyncRequest>;

export const ResolveConflictRequest = z.object({
  choice: z.enum(['mine', 'theirs', 'merged'], { error: 'choice must be "mine", "theirs" or "merged"' }),
  value: z.unknown().optional(),
});
export type ResolveConflictRequest = z.infer<typeof ResolveConflictRequest>;

export const SyncRemote = z.object({ id: Int, url: z.string(), username: z.string(), created: z.string() });
export type SyncRemote = z.infer<typeof SyncRemote>;

export const SyncDataset = z.object({
  remote_id: Int,
  dataset_uuid: z.string(),
  /** The server's update date up to which changes are pulled. */
  cursor: z.string().nullable(),
  last_pull: z.string().nullable(),
  last_push: z.string().nullable(),
  /** Every file of the dataset is downloaded in the background, not only on first use. */
  keep_files_offline: z.boolean(),
});
export type SyncDataset = z.infer<typeof SyncDataset>;

/**
 * Datasets (child datasets included) whose files may be only on a sync remote, among those the
 * caller may see: a file listed there without its bytes opens from the server. For every user.
 */
export const SyncedDatasets = z.object({ datasets: z.array(z.string()) });
export type SyncedDatasets = z.infer<typeof SyncedDatasets>;

/** DELETE /local/sync/datasets/{uuid} ("stop syncing"): the sync rows dropped; local data stays. */
export const StopSyncingAnswer = z.object({
  dataset_uuid: z.string(),
  /** Remotes the dataset was synced with. */
  remotes: Int,
  id_map: Int,
  bases: Int,
  /** Operations not sent (or parked), now dropped. */
  outbox: Int,
  conflicts: Int,
  removed: Int,
  file_map: Int,
  /** Files never downloaded here (bytes only on the server): no longer to be opened from here. */
  files_unavailable: Int,
});
export type StopSyncingAnswer = z.infer<typeof StopSyncingAnswer>;

/** GET /local/sync/datasets/{uuid}: what stopping syncing it would cost, asked before confirming. */
export const StopSyncingPreview = z.object({
  dataset_uuid: z.string(),
  /** Files of the dataset (children included) whose bytes are only on the server. */
  files_not_local: Int,
});
export type StopSyncingPreview = z.infer<typeof StopSyncingPreview>;

/** DELETE /local/sync/datasets/{uuid}?force=true: stop syncing although files are not on this computer. */
export const StopSyncingQuery = z.object({ force: z.enum(['true', 'false']).optional() });

/**
 * The `field_uuid` of a conflict about a record's public date (not a field: the record's own);
 * its values are the dates as the server writes them, and it has no merged choice.
 */
export const PUBLIC_DATE_FIELD = '_public_date';

/**
 * The `field_uuid` of a conflict about a child record the server deleted while it has changes
 * here not sent yet: "mine" makes it on the server again, "theirs" deletes it here; no merged choice.
 */
export const RECORD_DELETED_FIELD = '_record_deleted';

/** A field changed here and on the server since the last sync; values as shown to people. */
export const SyncConflict = z.object({
  id: Int,
  dataset_uuid: z.string(),
  record_uuid: z.string(),
  field_uuid: z.string(),
  field_name: z.string(),
  /** The file a file conflict is about (deleted on one side, changed on the other); '' otherwise. */
  item_uuid: z.string(),
  base: z.string().nullable(),
  mine: z.string().nullable(),
  theirs: z.string().nullable(),
  created: z.string(),
});
export type SyncConflict = z.infer<typeof SyncConflict>;

/** An operation the server refused: it waits here, nothing else does. */
export const ParkedOperation = z.object({
  id: Int,
  op: z.string(),
  record_uuid: z.string(),
  field_uuid: z.string(),
  last_error: z.string().nullable(),
  attempts: Int,
  /** A file operation's file, by the name it has here (null for other operations or a file gone). */
  file_name: z.string().nullable(),
});
export type ParkedOperation = z.infer<typeof ParkedOperation>;

/** POST /local/sync/attention/{id}: what to do with an operation the server refused. */
export const AttentionRequest = z.object({
  action: z.enum(['retry', 'discard'], { error: 'action must be "retry" or "discard"' }),
});
export type AttentionRequest = z.infer<typeof AttentionRequest>;
export type AttentionAction = AttentionRequest['action'];

/**
 * `queued`: sent again by the next sync (a refused delete: the record deleted here again);
 * `discarded`: the operation dropped, what it changed here set back to the server's last copy.
 */
export const AttentionAnswer = z.object({
  id: Int,
  action: z.enum(['retry', 'discard']),
  state: z.enum(['queued', 'discarded']),
});
export type AttentionAnswer = z.infer<typeof AttentionAnswer>;

export const RemovedOnServer = z.object({ record_uuid: z.string(), dataset_uuid: z.string(), detected: z.string() });
export type RemovedOnServer = z.infer<typeof RemovedOnServer>;

/** Live (proxy) mode of one remote: background push and pull. */
export const LiveSettings = z.object({
  enabled: z.boolean({ error: 'enabled must be true or false' }),
  /** Seconds between pulls; 0 pulls only on focus, reconnect and after a push. */
  pull_seconds: z
    .number({ error: 'pull_seconds must be a number' })
    .int('pull_seconds must be an integer')
    .min(0, 'pull_seconds must be 0 or more')
    .max(86_400, 'pull_seconds must be at most 86400'),
});
export type LiveSettings = z.infer<typeof LiveSettings>;
export const LiveSettingsRequest = LiveSettings.partial();
export type LiveSettingsRequest = z.infer<typeof LiveSettingsRequest>;

/**
 * The one sync status the app header shows: online (synced at), syncing, offline since … with
 * N waiting, paused (live mode refused, with why), or off.
 */
export const LiveState = z.enum(['off', 'online', 'syncing', 'offline', 'paused']);
export type LiveState = z.infer<typeof LiveState>;
export const LiveStatus = LiveSettings.extend({
  remote_id: Int,
  url: z.string(),
  state: LiveState,
  /** When the remote became unreachable, or live mode was paused. */
  since: z.string().nullable(),
  last_sync: z.string().nullable(),
  /** Local changes not yet on the server. */
  pending: Int,
  /** Conflicts and refused operations waiting for a person. */
  attention: Int,
  reason: z.string().nullable(),
  next_try: z.string().nullable(),
});
export type LiveStatus = z.infer<typeof LiveStatus>;

export const LiveStatusList = z.object({ live: z.array(LiveStatus) });
export type LiveStatusList = z.infer<typeof LiveStatusList>;

export const SyncStatus = z.object({
  live: z.array(LiveStatus),
  remotes: z.array(SyncRemote),
  datasets: z.array(SyncDataset),
  pending: Int,
  needsAttention: z.array(ParkedOperation),
  conflicts: z.array(SyncConflict),
  removedOnServer: z.array(RemovedOnServer),
});
export type SyncStatus = z.infer<typeof SyncStatus>;
