import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { TrackedJob } from '../../../shared/schemas/job';
import type { LiveStatus, SyncStatus } from '../../../shared/schemas/sync';
import { eventsUrl } from './api';
import { batchRunning, editInFlight } from './edits';
import { keys } from './queries';

/** How often a running import's or sample's progress may refresh the datasets list. */
const DATASETS_EVERY_MS = 2000;

/**
 * Follows the service's event stream: job progress goes straight into the jobs cache (live
 * progress bars, no polling) and record changes refresh what shows them.
 */
export function useServiceEvents(enabled: boolean): 'connecting' | 'live' | 'offline' {
  const qc = useQueryClient();
  const [state, setState] = useState<'connecting' | 'live' | 'offline'>('connecting');
  useEffect(() => {
    if (!enabled) return;
    const es = new EventSource(eventsUrl());
    // Events missed are not sent again: after a reconnect (EventSource reconnects by itself) or a
    // `resync` (the service dropped what this window read too slowly), refetch what is shown.
    // A record with an edit in flight is left out: the edit owns its cache and refetches it when it
    // settles (lib/edits.ts). Every other record is refetched.
    const refetchAll = () =>
      void qc.invalidateQueries({ predicate: (q) => q.queryKey[0] !== keys.record('')[0] || !editInFlight(String(q.queryKey[1])) });
    /** When a running import's or sample's progress last refreshed the datasets list (see 'job'). */
    let growingAt = 0;
    let readyBefore = false;
    es.addEventListener('ready', () => {
      setState('live');
      if (readyBefore) refetchAll();
      readyBefore = true;
    });
    es.addEventListener('resync', refetchAll);
    es.addEventListener('error', () => setState(es.readyState === EventSource.CLOSED ? 'offline' : 'connecting'));
    es.addEventListener('job', (e) => {
      const job = JSON.parse((e as MessageEvent<string>).data) as TrackedJob;
      qc.setQueryData<TrackedJob[]>(keys.jobs, (old = []) => {
        const rest = old.filter((j) => j.id !== job.id);
        return job.state === 'cancelled' ? rest : [job, ...rest].sort((a, b) => b.id - a.id);
      });
      if (job.job_type === 'import' || job.job_type === 'sample') {
        // The dataset is in within a second of the start, but a large job runs for minutes: while it
        // runs its progress refreshes the list (at most every DATASETS_EVERY_MS), so the dataset
        // shows early and its record count grows; its end (done, failed or stopped) refreshes it again.
        const now = Date.now();
        if (job.state !== 'running' || now - growingAt >= DATASETS_EVERY_MS) {
          if (job.state === 'running') growingAt = now;
          void qc.invalidateQueries({ queryKey: keys.datasets });
        }
      }
      if (job.job_type === 'sync' && job.state !== 'running') {
        void qc.invalidateQueries({ queryKey: keys.sync });
        void qc.invalidateQueries({ queryKey: keys.datasets });
        void qc.invalidateQueries({ queryKey: ['table'] });
      }
    });
    es.addEventListener('sync', (e) => {
      const live = JSON.parse((e as MessageEvent<string>).data) as LiveStatus;
      qc.setQueryData<SyncStatus>(
        keys.sync,
        (old) =>
          old && {
            ...old,
            pending: live.pending,
            live: [live, ...old.live.filter((l) => l.remote_id !== live.remote_id)].sort((a, b) => a.remote_id - b.remote_id),
          },
      );
      if (live.state === 'online') void qc.invalidateQueries({ queryKey: keys.sync }); // conflicts, bins, dates
    });
    es.addEventListener('records', (e) => {
      // A batch in progress refreshes everything itself once its last chunk is answered.
      if (batchRunning()) return;
      const { datasetUuid, recordUuids } = JSON.parse((e as MessageEvent<string>).data) as { datasetUuid: string; recordUuids: string[] };
      void qc.invalidateQueries({ queryKey: keys.table(datasetUuid) });
      void qc.invalidateQueries({ queryKey: keys.datasets });
      void qc.invalidateQueries({ queryKey: keys.sync }); // pending local changes
      for (const r of recordUuids) {
        // An edit in flight owns its record's cache until it settles.
        if (!editInFlight(r)) void qc.invalidateQueries({ queryKey: keys.record(r) });
      }
    });
    return () => es.close();
  }, [enabled, qc]);
  return state;
}
