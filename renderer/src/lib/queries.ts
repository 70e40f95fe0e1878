import { useQuery, type QueryClient } from '@tanstack/react-query';
import type { OdrRecord } from '../../../shared/schemas/record';
import { api, datasets, recentJobs, recordHistory, syncedDatasets, syncStatus } from './api';
import { mergeJobs } from './jobsMerge';
import type { TrackedJob } from '../../../shared/schemas/job';

export const keys = {
  datasets: ['datasets'] as const,
  template: (uuid: string) => ['template', uuid] as const,
  record: (uuid: string) => ['record', uuid] as const,
  history: (top: string) => ['history', top] as const,
  table: (dataset: string) => ['table', dataset] as const,
  quota: (uuid: string) => ['quota', uuid] as const,
  jobs: ['jobs'] as const,
  sync: ['sync'] as const,
  synced: ['synced-datasets'] as const,
  trash: ['trash'] as const,
  recordTrash: ['record-trash'] as const,
};

export const useDatasets = (enabled = true) => useQuery({ queryKey: keys.datasets, queryFn: datasets, enabled });
export const useTemplate = (uuid: string | undefined) =>
  useQuery({ queryKey: keys.template(uuid ?? ''), queryFn: () => api.template(uuid!), enabled: !!uuid, staleTime: Infinity });
/**
 * Puts a record the list already holds (its pages carry whole records) where the pane reads it,
 * so moving through the list draws the next record at once; the pane still asks the service on
 * mount (the data counts as stale) and shows its answer. A record already cached is left alone.
 */
export function seedRecord(qc: QueryClient, rec: OdrRecord | undefined) {
  if (rec && qc.getQueryData(keys.record(rec.record_uuid)) === undefined)
    qc.setQueryData(keys.record(rec.record_uuid), rec, { updatedAt: 0 });
}
export const useRecord = (uuid: string | undefined) =>
  useQuery({ queryKey: keys.record(uuid ?? ''), queryFn: () => api.record(uuid!), enabled: !!uuid });
export const useQuota = (uuid: string) => useQuery({ queryKey: keys.quota(uuid), queryFn: () => api.quota(uuid) });
export const useJobs = (enabled = true) =>
  useQuery({
    queryKey: keys.jobs,
    queryFn: recentJobs,
    enabled,
    structuralSharing: (old, fresh) => mergeJobs(old as TrackedJob[] | undefined, fresh as TrackedJob[]),
  });
export const useSyncStatus = (enabled = true) => useQuery({ queryKey: keys.sync, queryFn: syncStatus, enabled });
/** Datasets (child datasets too) whose server-only files open through sync; for every user. */
export const useSyncedDatasets = () => useQuery({ queryKey: keys.synced, queryFn: syncedDatasets, staleTime: 30_000 });
/** A record tree's history (fetched when a history list is opened; refreshed after each edit). */
export const useRecordHistory = (top: string, enabled: boolean) =>
  useQuery({ queryKey: keys.history(top), queryFn: () => recordHistory(top), enabled });
