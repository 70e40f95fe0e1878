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
});
export type SyncDataset = z.infer<typeof SyncDataset>;

/** A field changed here and on the server since the last sync; values as shown to people. */
export const SyncConflict = z.object({
  id: Int,
  dataset_uuid: z.string(),
  record_uuid: z.string(),
  field_uuid: z.string(),
  field_name: z.string(),
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
});
export type ParkedOperation = z.infer<typeof ParkedOperation>;

export const RemovedOnServer = z.object({ record_uuid: z.string(), dataset_uuid: z.string(), detected: z.string() });
export type RemovedOnServer = z.infer<typeof RemovedOnServer>;

export const SyncStatus = z.object({
  remotes: z.array(SyncRemote),
  datasets: z.array(SyncDataset),
  pending: Int,
  needsAttention: z.array(ParkedOperation),
  conflicts: z.array(SyncConflict),
  removedOnServer: z.array(RemovedOnServer),
});
export type SyncStatus = z.infer<typeof SyncStatus>;
