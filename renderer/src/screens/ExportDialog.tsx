import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { TrackedJob } from '../../../shared/schemas/job';
import type { SearchView } from '../../../shared/schemas/view';
import { errorText, startExport } from '../lib/api';
import { exportDownload } from '../lib/exports';
import { countOf } from '../lib/numbers';
import { keys, useJobs } from '../lib/queries';
import { percent } from '../jobs/JobsPanel';
import type { Column } from './columns';
import { DialogActions, Modal } from '../ui/Dialog';

const FORMATS: [value: 'csv' | 'json', label: string][] = [
  ['csv', "CSV (the list's columns)"],
  ['json', 'JSON (ODR record list, re-importable)'],
];

/**
 * Export of what the list shows — its search, filters, sort and columns — as CSV or as JSON in
 * the ODR record-list shape, optionally zipped with the records' files. The service runs it as a
 * job (also in the Jobs panel); the dialog follows its progress and offers the download.
 */
export function ExportDialog({
  dataset,
  view,
  columns,
  count,
  onClose,
}: {
  dataset: string;
  view: SearchView;
  columns: Column[];
  count: number | null;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const [format, setFormat] = useState<'csv' | 'json'>('csv');
  const [files, setFiles] = useState(false);
  const [jobId, setJobId] = useState<number | null>(null);
  const [error, setError] = useState('');
  const { data: jobs = [] } = useJobs();
  const job = jobs.find((j) => j.id === jobId);
  const link = job ? exportDownload(job) : null;
  // Export disables itself once started, then gives way to Download: the focus follows it, to the
  // progress while the job runs and to Download when it is ready, unless it went elsewhere.
  const progress = useRef<HTMLDivElement>(null);
  const download = useRef<HTMLAnchorElement>(null);
  const ready = link !== null;
  const started = job !== undefined;
  useEffect(() => {
    const at = document.activeElement;
    const lost = !at || at === document.body || at === progress.current || (at instanceof HTMLButtonElement && at.disabled);
    if (!lost) return;
    if (ready) download.current?.focus();
    else if (started) progress.current?.focus();
  }, [ready, started]);

  const start = async () => {
    setError('');
    try {
      const j = await startExport(dataset, { format, view, columns: columns.map((c) => c.key), files });
      // A small export may finish before this answer arrives: the event stream's entry is newer.
      qc.setQueryData<TrackedJob[]>(keys.jobs, (old = []) => (old.some((x) => x.id === j.id) ? old : [j, ...old]));
      setJobId(j.id);
    } catch (e) {
      setError(`Not started: ${errorText(e)}`);
    }
  };

  const what = count === null ? 'the records shown' : countOf(count, 'record');
  return (
    <Modal className="confirm export-dialog" labelledBy="export-title" onClose={onClose}>
      <h2 id="export-title">Export {what}</h2>
      <p className="muted small">
        As the list shows them: {view.q || view.filters?.length ? 'this search and these filters, ' : ''}
        {view.sort ? 'this sort, ' : ''}
        {format === 'csv' ? `the name and ${countOf(columns.length, 'column')}` : 'whole records with their child records'}.
      </p>
      <div className="batch-form">
        <div className="choices" role="radiogroup" aria-label="Format">
          {FORMATS.map(([value, label]) => (
            <label key={value} className="choice">
              <input
                type="radio"
                name="export-format"
                checked={format === value}
                onChange={() => setFormat(value)}
                disabled={jobId !== null}
              />
              {label}
            </label>
          ))}
        </div>
        <label className="choice">
          <input type="checkbox" checked={files} onChange={(e) => setFiles(e.target.checked)} disabled={jobId !== null} />
          With the records&apos; files, as a zip
        </label>
      </div>
      {job && (
        <div ref={progress} className="export-progress" role="status" tabIndex={-1}>
          <progress max={100} value={percent(job)} aria-label="Export progress" aria-valuetext={`${percent(job)} %`} />
          <span>
            {job.state === 'running' ? `${percent(job)} %` : job.state === 'complete' ? 'Ready' : `Export ${job.state}`}
            {job.error ? `: ${job.error}` : ''}
          </span>
        </div>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <DialogActions
        secondary={{ label: jobId === null ? 'Cancel' : 'Close', onClick: onClose }}
        primary={link ? undefined : { label: 'Export', disabled: jobId !== null, onClick: () => void start() }}
      >
        {link && (
          <a ref={download} className="button primary" href={link.href} download={link.name}>
            Download
          </a>
        )}
      </DialogActions>
    </Modal>
  );
}
