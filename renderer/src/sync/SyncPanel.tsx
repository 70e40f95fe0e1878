import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { attendParked, errorText, keepFilesOffline, runSync } from '../lib/api';
import type { ParkedOperation } from '../../../shared/schemas/sync';
import { keys, useDatasets, useJobs, useSyncStatus } from '../lib/queries';
import { SidePanel } from '../ui/SidePanel';
import { confirmDialog, type Question } from '../ui/Dialog';
import { toast } from '../ui/toasts';
import { percent } from '../jobs/JobsPanel';
import { JOB_STATE_LABELS } from '../../../shared/schemas/job';
import { Conflicts } from './Conflicts';
import { DatasetPicker } from './DatasetPicker';
import { LiveSettings } from './LiveSettings';
import { RemoteForm } from './RemoteForm';
import { StopSyncingButton } from './StopSyncingButton';
import { SteadyButton } from '../ui/SteadyButton';
import { Time } from '../ui/Time';
import { useSavedToggle } from '../ui/useSavedToggle';
import { useFocusOnLeave } from '../ui/useFocusOnLeave';
import { syncNowButton } from './syncNowButton';

// The app's one date format (ui/Time), not the browser's locale string.
const when = (iso: string | null) => (iso ? <Time ts={iso} /> : 'never');
const OPS: Record<string, string> = {
  value: 'Set value',
  option: 'Select option',
  public: 'Public date',
  create: 'Create record',
  create_child: 'Create child record',
  delete: 'Delete record',
  converge: 'Send record',
  file_upload: 'Upload file',
  file_meta: 'File details',
  file_delete: 'Delete file',
};

/**
 * What Discard asks first when it deletes something the server never received: a refused upload's
 * bytes here are the only copy (no file trash), a refused create's record goes to the Trash.
 */
function discardQuestion(o: ParkedOperation): Question | null {
  if (o.op === 'file_upload') {
    const name = o.file_name ?? 'this file';
    return {
      title: `Delete ${name} here?`,
      body: `The server never received ${name}, so this removes the only copy. It cannot be restored.`,
      confirm: 'Delete file',
      danger: true,
    };
  }
  if (o.op === 'create' || o.op === 'create_child')
    return {
      title: 'Discard this new record?',
      body: 'The server never received it. It is deleted here (the Trash keeps it for 30 days) and nothing of it is sent.',
      confirm: 'Discard record',
      danger: true,
    };
  return null;
}

/** One refused operation, with why, and its two ways out. */
function AttentionItem({ o }: { o: ParkedOperation }) {
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  // The entry goes once its operation is done: the focus moves to the next entry's same button.
  const { entry: item, leaving } = useFocusOnLeave<HTMLLIElement>(syncNowButton);
  const act = async (action: 'retry' | 'discard') => {
    const question = action === 'discard' ? discardQuestion(o) : null;
    if (question && !(await confirmDialog(question))) return;
    setBusy(true);
    try {
      await attendParked(o.id, { action });
      toast({
        kind: 'info',
        text: `${OPS[o.op] ?? o.op}: ${action === 'retry' ? 'sent again with the next sync' : "discarded; the server's version is kept"}`,
      });
      leaving(action);
      await qc.invalidateQueries({ queryKey: keys.sync });
      void qc.invalidateQueries({ queryKey: keys.record(o.record_uuid) });
    } catch (e) {
      toast({ kind: 'error', text: `Not done: ${errorText(e)}` });
    } finally {
      setBusy(false);
    }
  };
  return (
    <li data-attention={o.id} ref={item}>
      <strong>{OPS[o.op] ?? o.op}</strong> <span className="mono small">{o.record_uuid.slice(0, 8)}…</span>
      <div className="field-error small" role="alert">
        {o.last_error}
      </div>
      <div className="conflict-actions">
        <SteadyButton type="button" disabled={busy} data-action="retry" onClick={() => void act('retry')}>
          Retry
        </SteadyButton>
        <SteadyButton
          type="button"
          disabled={busy}
          data-action="discard"
          title="Drop this change and take the server's version here"
          onClick={() => void act('discard')}
        >
          Discard
        </SteadyButton>
      </div>
    </li>
  );
}

/** Whether a synced dataset's files are all downloaded (a job) rather than when opened. */
function KeepOffline({ remote, dataset, kept }: { remote: number; dataset: string; kept: boolean }) {
  const qc = useQueryClient();
  const [on, set] = useSavedToggle(kept, (keep) =>
    keepFilesOffline({ remote_id: remote, dataset_uuid: dataset, keep })
      .then(() => qc.invalidateQueries({ queryKey: keys.sync }))
      .catch((err: unknown) => toast({ kind: 'error', text: `Keep files offline not changed: ${errorText(err)}` })),
  );
  return (
    <label className="small" title="Download every file of this dataset now (a job), not only when opened">
      <input type="checkbox" checked={on} onChange={(e) => set(e.target.checked)} /> Keep files offline
    </label>
  );
}

/**
 * The remote, its datasets, pending changes, the running sync (a tracked job), conflicts,
 * operations the server refused, and records the server no longer lists.
 */
export function SyncPanel({ onClose }: { onClose: () => void }) {
  const qc = useQueryClient();
  const status = useSyncStatus();
  const jobs = useJobs();
  const local = useDatasets();
  const [mode, setMode] = useState<'view' | 'add' | 'pick'>('view');
  const s = status.data;
  const remote = s?.remotes[0];
  const live = s?.live.find((l) => l.remote_id === remote?.id);
  const syncJobs = (jobs.data ?? []).filter((j) => j.job_type === 'sync');
  const running = syncJobs.find((j) => j.state === 'running');
  const last = syncJobs.find((j) => j.state !== 'running');
  const name = (uuid: string) => local.data?.find((d) => d.uuid === uuid)?.name ?? uuid;

  const start = async (datasets?: string[]) => {
    if (!remote) return;
    try {
      const job = await runSync({ remote_id: remote.id, ...(datasets ? { datasets } : {}) });
      qc.setQueryData(keys.jobs, (old: typeof jobs.data = []) => [job, ...old.filter((j) => j.id !== job.id)]);
      setMode('view');
    } catch (e) {
      toast({ kind: 'error', text: `Sync not started: ${errorText(e)}` });
    }
  };

  let body;
  if (status.isError)
    body = (
      <p className="field-error" role="alert">
        {errorText(status.error)}
      </p>
    );
  else if (!s)
    body = (
      <p className="muted" aria-busy="true">
        Loading…
      </p>
    );
  else if (!remote || mode === 'add') {
    body = (
      <RemoteForm
        onCancel={remote ? () => setMode('view') : undefined}
        onAdded={() => {
          void qc.invalidateQueries({ queryKey: keys.sync });
          setMode('pick');
        }}
      />
    );
  } else if (mode === 'pick') {
    body = (
      <DatasetPicker
        remoteId={remote.id}
        synced={s.datasets.map((d) => d.dataset_uuid)}
        onSync={(ds) => void start(ds)}
        onCancel={s.datasets.length ? () => setMode('view') : undefined}
      />
    );
  } else {
    const mine = s.datasets.filter((d) => d.remote_id === remote.id);
    body = (
      <>
        <section aria-label="Remote" className="sync-remote">
          <div className="sync-remote-head">
            <span className="mono" title={remote.url}>
              {remote.url.replace(/^https?:\/\//, '')}
            </span>
            <button type="button" className="link" onClick={() => setMode('add')}>
              Change…
            </button>
          </div>
          <span className="muted small">as {remote.username}</span>
        </section>
        {live && <LiveSettings key={`${live.remote_id}:${live.pull_seconds}`} live={live} />}
        {mine.length === 0 ? (
          <DatasetPicker remoteId={remote.id} synced={[]} onSync={(ds) => void start(ds)} />
        ) : (
          <section aria-label="Synced datasets">
            <ul className="sync-datasets">
              {mine.map((d) => (
                <li key={d.dataset_uuid}>
                  <strong>{name(d.dataset_uuid)}</strong>
                  <span className="muted small">
                    pulled {when(d.last_pull)} · sent {when(d.last_push)}
                  </span>
                  <KeepOffline remote={remote.id} dataset={d.dataset_uuid} kept={d.keep_files_offline} />
                  <StopSyncingButton dataset={d.dataset_uuid} name={name(d.dataset_uuid)} disabled={!!running} />
                </li>
              ))}
            </ul>
            <button type="button" className="link" onClick={() => setMode('pick')}>
              Choose datasets…
            </button>
          </section>
        )}
        <section aria-label="Sync now" className="sync-now">
          <p>
            <strong data-testid="pending">{s.pending}</strong> local change{s.pending === 1 ? '' : 's'} waiting to be sent
          </p>
          <SteadyButton type="button" className="primary" disabled={!!running || mine.length === 0} onClick={() => void start()}>
            {running ? 'Syncing…' : 'Sync now'}
          </SteadyButton>
          {running && <progress max={100} value={percent(running)} aria-label="Sync progress" />}
          {!running && last && (
            <p className={`small ${last.state === 'failed' ? 'field-error' : 'muted'}`} role={last.state === 'failed' ? 'alert' : 'status'}>
              Last sync {last.state === 'failed' ? `failed: ${last.error ?? 'unknown error'}` : JOB_STATE_LABELS[last.state].toLowerCase()}
            </p>
          )}
        </section>
        {s.conflicts.length > 0 && <Conflicts conflicts={s.conflicts} />}
        {s.needsAttention.length > 0 && (
          <section aria-label="Needs attention">
            <h3>
              Needs attention <span className="badge badge-failed">{s.needsAttention.length}</span>
            </h3>
            <p className="muted small">
              The server refused these. <em>Retry</em> sends one again with the next sync; <em>Discard</em> drops it and takes the
              server&apos;s version here.
            </p>
            <ul className="attention">
              {s.needsAttention.map((o) => (
                <AttentionItem key={o.id} o={o} />
              ))}
            </ul>
          </section>
        )}
        {s.removedOnServer.length > 0 && (
          <section aria-label="Removed on server">
            <h3>
              Removed on the server <span className="badge">{s.removedOnServer.length}</span>
            </h3>
            <p className="muted small">Kept here: the server no longer lists these records.</p>
            <ul className="attention">
              {s.removedOnServer.map((r) => (
                <li key={r.record_uuid}>
                  <a className="mono small" href={`#/d/${r.dataset_uuid}/r/${r.record_uuid}`}>
                    {r.record_uuid}
                  </a>
                </li>
              ))}
            </ul>
          </section>
        )}
      </>
    );
  }
  return (
    <SidePanel title="Sync" className="sync-panel" onClose={onClose}>
      {body}
    </SidePanel>
  );
}
