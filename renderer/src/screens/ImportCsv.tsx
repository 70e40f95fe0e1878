import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { CsvImportResult, type CsvMapping, type CsvPreview } from '../../../shared/schemas/csvImport';
import { errorText, previewCsv, startCsvImport } from '../lib/api';
import { keys, useJobs } from '../lib/queries';
import { CsvFailures as Failures } from '../jobs/CsvFailures';
import { percent } from '../jobs/JobsPanel';
import { JOB_STATE_LABELS } from '../../../shared/schemas/job';
import { DialogActions, Modal } from '../ui/Dialog';

/**
 * Import CSV into a dataset: pick a file, check how its columns map to fields (guessed from the
 * header, editable), see the first rows and every row that would fail, then run the import as a
 * job whose progress shows here and in the Jobs panel.
 */
export function ImportCsv({ dataset, name, onClose }: { dataset: string; name: string; onClose: () => void }) {
  const qc = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [mapping, setMapping] = useState<CsvMapping | undefined>(undefined);
  const [preview, setPreview] = useState<CsvPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [jobId, setJobId] = useState<number | null>(null);
  const { data: jobs = [] } = useJobs(jobId !== null);
  const job = jobs.find((j) => j.id === jobId);
  const result = job?.state === 'complete' ? CsvImportResult.safeParse(job.additional_data) : null;

  useEffect(() => {
    if (!file) return;
    let live = true;
    setBusy(true);
    setError(null);
    previewCsv(dataset, file, mapping)
      .then((p) => live && setPreview(p))
      .catch((e: unknown) => {
        if (!live) return;
        setPreview(null);
        setError(errorText(e));
      })
      .finally(() => live && setBusy(false));
    return () => {
      live = false;
    };
  }, [dataset, file, mapping]);

  useEffect(() => {
    if (job && job.state !== 'running') {
      void qc.invalidateQueries({ queryKey: keys.table(dataset) });
      void qc.invalidateQueries({ queryKey: keys.datasets });
    }
  }, [job, qc, dataset]);

  const remap = (column: string, field: string) => {
    if (!preview) return;
    const next: CsvMapping = Object.fromEntries(preview.columns.map((c) => [c.name, c.field_uuid ?? '']));
    next[column] = field;
    setMapping(next);
  };

  const start = async () => {
    if (!file) return;
    setBusy(true);
    try {
      setJobId((await startCsvImport(dataset, file, mapping)).id);
      void qc.invalidateQueries({ queryKey: keys.jobs });
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  const importable = preview ? preview.total - preview.failed_rows : 0;
  const failingRows = new Set(preview?.failures.map((f) => f.row));
  const mapped = preview?.columns.filter((c) => c.field_uuid) ?? [];
  const fieldName = (uuid: string | null) => preview?.fields.find((f) => f.field_uuid === uuid)?.name ?? '';

  return (
    <Modal className="confirm csv-import" labelledBy="csv-title" busy={job?.state === 'running'} onClose={onClose}>
      <h2 id="csv-title">Import CSV into {name}</h2>
      {jobId === null && (
        <>
          <label className="csv-file">
            <span>CSV file (UTF-8, first row names the columns)</span>
            <input
              type="file"
              accept=".csv,.tsv,.txt,text/csv"
              onChange={(e) => {
                setMapping(undefined);
                setPreview(null);
                setFile(e.target.files?.[0] ?? null);
              }}
            />
          </label>
          {error && (
            <p className="field-error" role="alert">
              {error}
            </p>
          )}
          {preview && (
            <>
              <h3>Columns</h3>
              <p className="muted">
                Matched to fields by name; change any. Options and tags are matched by name, several separated by “;”.
              </p>
              <div className="csv-mapping">
                {preview.columns.map((c) => (
                  <label key={c.name}>
                    <span>
                      {c.name}
                      {c.source === 'guess' && <span className="muted"> (matched by name)</span>}
                    </span>
                    <select value={c.field_uuid ?? ''} onChange={(e) => remap(c.name, e.target.value)} disabled={busy}>
                      <option value="">— leave out —</option>
                      {preview.fields.map((f) => (
                        <option key={f.field_uuid} value={f.field_uuid}>
                          {f.name} ({f.fieldtype})
                        </option>
                      ))}
                    </select>
                  </label>
                ))}
              </div>
              <h3>First rows</h3>
              <div className="csv-rows" role="region" aria-label="First rows of the file" tabIndex={0}>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Row</th>
                      {preview.columns.map((c) => (
                        <th key={c.name} scope="col" className={c.field_uuid ? '' : 'muted'}>
                          {c.field_uuid ? fieldName(c.field_uuid) : `${c.name} (left out)`}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {preview.rows.map((r, i) => (
                      <tr key={i} className={failingRows.has(i + 2) ? 'csv-bad' : undefined}>
                        <td>{i + 2}</td>
                        {preview.columns.map((c, k) => (
                          <td key={c.name}>{r[k] ?? ''}</td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <p role="status" data-testid="csv-summary">
                {preview.total.toLocaleString()} rows: {importable.toLocaleString()} will be imported
                {preview.failed_rows > 0 ? `, ${preview.failed_rows.toLocaleString()} fail (listed below; they are left out)` : ''}.
              </p>
              <Failures list={preview.failures} total={preview.failed_rows} truncated={preview.failures_truncated} />
            </>
          )}
        </>
      )}
      {jobId !== null && (
        <div className="csv-job">
          <progress max={100} value={job ? percent(job) : 0} aria-label="CSV import progress" />
          <p role="status" data-testid="csv-job-status">
            {!job || job.state === 'running'
              ? `Importing… ${job ? percent(job) : 0} %`
              : job.state === 'complete' && result?.success
                ? `Imported ${result.data.imported.toLocaleString()} of ${result.data.total.toLocaleString()} rows; ${result.data.failed_rows.toLocaleString()} refused.`
                : job.state === 'complete'
                  ? 'The import ended, but its summary could not be read: check the records in the dataset.'
                  : `The import ${job.state === 'cancelled' ? 'was cancelled' : JOB_STATE_LABELS[job.state].toLowerCase()}${job.error ? `: ${job.error}` : ''}.`}
          </p>
          {result?.success && (
            <Failures list={result.data.failures} total={result.data.failed_rows} truncated={result.data.failures_truncated} />
          )}
        </div>
      )}
      <DialogActions
        secondary={{ label: jobId === null ? 'Cancel' : 'Close', onClick: onClose, disabled: job?.state === 'running' }}
        primary={
          jobId === null
            ? {
                label: `Import ${importable.toLocaleString()} row${importable === 1 ? '' : 's'}`,
                disabled: !preview || busy || importable === 0 || mapped.length === 0,
                onClick: () => void start(),
              }
            : undefined
        }
      />
    </Modal>
  );
}
