import { useState } from 'react';
import type { DatasetSummary } from '../../lib/api';
import { dateTitle } from '../../lib/dates';
import { countOf } from '../../lib/numbers';
import type { Route } from '../../lib/route';
import { Time } from '../../ui/Time';
import { DeleteDatasetButton } from '../DeleteDataset';
import { ImportCsv } from '../ImportCsv';
import type { Template } from '../../../../shared/schemas/template';

/** The dataset's name and size, its Records/Template tabs, Import CSV… and Delete dataset…. */
export function DatasetHead({
  summary,
  tpl,
  route,
  go,
  onImportClosed,
}: {
  summary: DatasetSummary;
  tpl: Template;
  route: Route;
  go: (r: Partial<Route>) => void;
  onImportClosed: () => void;
}) {
  const [importing, setImporting] = useState(false);
  const meta = `${countOf(summary.records, 'record')} · last change ${dateTitle(summary.updated)}`;
  return (
    <>
      {/* Two rows whatever the texts' lengths: the name with its size on the first, cut short
          (whole in their titles) rather than wrapped; the tabs and actions, of fixed widths, on the
          second. A count or date that changes moves nothing else (docs/renderer-state.md). */}
      <header className="dataset-head">
        <div className="dataset-title">
          <h1 title={summary.name}>{summary.name}</h1>
          <p className="muted" title={meta}>
            {countOf(summary.records, 'record')} · last change <Time ts={summary.updated} />
          </p>
        </div>
        <nav className="tabs" aria-label="Dataset views">
          <button type="button" aria-pressed={route.view === 'records'} onClick={() => go({ view: 'records' })}>
            Records
          </button>
          <button type="button" aria-pressed={route.view === 'template'} onClick={() => go({ view: 'template' })}>
            Template
          </button>
        </nav>
        <div className="dataset-actions">
          <button type="button" onClick={() => setImporting(true)}>
            Import CSV…
          </button>
          <DeleteDatasetButton
            summary={summary}
            tpl={tpl}
            onDeleted={() => go({ dataset: undefined, record: undefined, view: 'records' })}
          />
        </div>
      </header>
      {importing && (
        <ImportCsv
          dataset={summary.uuid}
          name={summary.name}
          onClose={() => {
            setImporting(false);
            onImportClosed();
          }}
        />
      )}
    </>
  );
}
