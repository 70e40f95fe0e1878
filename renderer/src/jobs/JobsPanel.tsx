import { CsvImportResult } from '../../../shared/schemas/csvImport';
import { JOB_STATE_LABELS, jobLabel, type TrackedJob } from '../../../shared/schemas/job';
import { api, errorText } from '../lib/api';
import { exportDownload } from '../lib/exports';
import { useJobs } from '../lib/queries';
import { SidePanel } from '../ui/SidePanel';
import { Time } from '../ui/Time';
import { toast } from '../ui/toasts';
import { CsvFailures } from './CsvFailures';
import { ImportOdrButton } from './ImportOdrButton';

export function percent(j: TrackedJob): number {
  if (j.state === 'complete') return 100;
  return j.total > 0 ? Math.min(100, Math.floor((j.current / j.total) * 100)) : 0;
}

/** A finished CSV import's counts, and the rows it refused behind a disclosure. */
function CsvOutcome({ job }: { job: TrackedJob }) {
  if (job.job_type !== 'import_csv' || job.state !== 'complete') return null;
  const r = CsvImportResult.safeParse(job.additional_data);
  if (!r.success) return null;
  const { imported, failed_rows: refused, failures, failures_truncated } = r.data;
  return (
    <div className="job-outcome" data-testid="csv-job-outcome">
      <p className="small">
        {imported.toLocaleString()} imported · {refused.toLocaleString()} refused
      </p>
      {refused > 0 && (
        <details>
          <summary>Show the {refused === 1 ? 'refused row' : `${refused.toLocaleString()} refused rows`}</summary>
          <CsvFailures list={failures} total={refused} truncated={failures_truncated} />
        </details>
      )}
    </div>
  );
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
              <strong>{jobLabel(j.job_type)}</strong>
              <span className="muted" title={j.target_name}>
                {j.target_name}
              </span>
              <span className={`badge badge-${j.state}`}>{JOB_STATE_LABELS[j.state]}</span>
            </div>
            <progress
              max={100}
              value={percent(j)}
              aria-label={`${jobLabel(j.job_type)} ${j.target_name} progress`}
              aria-valuetext={`${percent(j)} %`}
            />
            <div className="job-foot">
              <span>{percent(j)} %</span>
              <span className="muted small">
                started <Time ts={j.started.date} />
              </span>
              {/* Said when it appears: a job fails while the user is elsewhere in the panel. */}
              {j.error && (
                <span className="field-error" role="alert">
                  {j.error}
                </span>
              )}
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
            <CsvOutcome job={j} />
          </li>
        ))}
      </ul>
    </SidePanel>
  );
}
