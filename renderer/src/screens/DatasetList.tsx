import { useState } from 'react';
import type { DatasetSummary } from '../lib/api';
import { Time } from '../ui/Time';
import { countOf } from '../lib/numbers';
import { ChildDatasets } from './ChildDatasets';
import { SavedSearches } from './SavedSearches';

/** Local datasets with record counts and last change; a filter box for long lists. */
export function DatasetList({
  datasets,
  current,
  onOpen,
  onOpenChild,
}: {
  datasets: DatasetSummary[];
  current?: string;
  onOpen: (uuid: string) => void;
  /** A child dataset: shown in its parent's template. */
  onOpenChild: (parent: string, child: string) => void;
}) {
  const [filter, setFilter] = useState('');
  const f = filter.trim().toLowerCase();
  const shown = f ? datasets.filter((d) => d.name.toLowerCase().includes(f) || d.description?.toLowerCase().includes(f)) : datasets;
  return (
    <nav className="sidebar" aria-label="Datasets">
      <h2>Datasets</h2>
      <input
        type="search"
        placeholder="Find a dataset…"
        aria-label="Find a dataset"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
      />
      <ul>
        {shown.map((d) => (
          <li key={d.uuid}>
            <a
              href={`#/d/${d.uuid}`}
              aria-current={d.uuid === current ? 'page' : undefined}
              onClick={(e) => {
                e.preventDefault();
                onOpen(d.uuid);
              }}
            >
              <span className="ds-name">
                {d.name}
                {d.metadata_for ? <span className="badge">metadata</span> : null}
              </span>
              <span className="muted small">
                {countOf(d.records, 'record')} · <Time ts={d.updated} />
              </span>
            </a>
            <ChildDatasets parent={d} onOpen={(child) => onOpenChild(d.uuid, child)} />
            {d.uuid === current && <SavedSearches dataset={d.uuid} />}
          </li>
        ))}
        {shown.length === 0 && <li className="muted">{datasets.length ? 'No dataset matches.' : 'No datasets yet.'}</li>}
      </ul>
    </nav>
  );
}
