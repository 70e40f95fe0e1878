import type { TrackedJob } from '../../../shared/schemas/job';
import { api, errorText } from '../lib/api';
import { exportDownload } from '../lib/exports';
import { useJobs } from '../lib/queries';
import { SidePanel } from '../ui/SidePanel';
import { Time } from '../ui/Time';
import { toast } from '../ui/toasts';
import { ImportOdrButton } from './ImportOdrButton';

const LABELS: Record<string, string> = {
  import: 'Import',
  import_csv: 'CSV import',
  rebuild_thumbnails: 'Thumbnails',
  sync: 'Sync',
  export: 'Export',
};

export function percent(j: TrackedJob): number {
  if (j.state === 'complete') return 100;
  return j.total > 0 ? Math.min(100, Math.floor((j.current / j.total) * 100)) : 0;
}

/** Running and recent jobs with live progress (from the event stream); start an import here. */
export function JobsPanel({ onClose }: { onClose: () => void }) {
  const { data: jobs = [] } = useJobs();
  const cancel = async (j: TrackedJob) => {
    try {
      await api.cancelJob(j.id);
    } catch (e) {
      toast({ kind: 'error', text: `Could not cancel: ${errorText(e)}` });
    }
  };
  return (
    <SidePanel title="Jobs" onClose={onClose} actions={<ImportOdrButton>Import ODR export…</ImportOdrButton>}>
      {jobs.length === 0 && <p className="muted">No jobs yet. Imports, exports, syncs and thumbnail rebuilds show their progress here.</p>}
      <ul>
        {jobs.map((j) => (
          <li key={j.id} className={`job job-${j.state}`} data-job={j.id}>
            <div className="job-head">
              <strong>{LABELS[j.job_type] ?? j.job_type}</strong>
              <span className="muted" title={j.target_entity}>
                {j.target_entity}
              </span>
              <span className={`badge badge-${j.state}`}>{j.state}</span>
            </div>
            <progress
              max={100}
              value={percent(j)}
              aria-label={`${LABELS[j.job_type] ?? j.job_type} ${j.target_entity} progress`}
              aria-valuetext={`${percent(j)} %`}
            />
            <div className="job-foot">
              <span>{percent(j)} %</span>
              <span className="muted small">
                started <Time ts={j.started.date} />
              </span>
              {j.error && <span className="field-error">{j.error}</span>}
              {j.state === 'running' && (
                <button type="button" className="link" onClick={() => void cancel(j)}>
                  Cancel
                </button>
              )}
              {exportDownload(j) && (
                <a className="link" href={exportDownload(j)!.href} download={exportDownload(j)!.name}>
                  Download
                </a>
              )}
            </div>
          </li>
        ))}
      </ul>
    </SidePanel>
  );
}
