import { useRef, useState, type KeyboardEvent } from 'react';
import type { DatasetSummary } from '../lib/api';
import { Time } from '../ui/Time';
import { countOf } from '../lib/numbers';
import { ChildDatasets } from './ChildDatasets';
import { SavedSearches } from './SavedSearches';

/**
 * Local datasets with record counts and last change; a filter box for long lists. From the box,
 * Enter opens the first match and ArrowDown moves into the list, where the arrows move between
 * datasets (ArrowUp from the first goes back to the box) and Enter opens the focused one.
 */
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
  const box = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);
  // Only the datasets' own links: child datasets and saved searches in between are Tab stops.
  const links = () => [...(list.current?.querySelectorAll<HTMLAnchorElement>('a[data-dataset]') ?? [])];
  const onBoxKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter' && shown[0]) {
      e.preventDefault();
      onOpen(shown[0].uuid);
    } else if (e.key === 'ArrowDown' && shown[0]) {
      e.preventDefault();
      links()[0]?.focus();
    }
  };
  const onListKey = (e: KeyboardEvent<HTMLUListElement>) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const all = links();
    const at = all.indexOf(e.target as HTMLAnchorElement);
    if (at < 0) return;
    e.preventDefault();
    const next = at + (e.key === 'ArrowDown' ? 1 : -1);
    if (next < 0) box.current?.focus();
    else all[Math.min(next, all.length - 1)]?.focus();
  };
  return (
    <nav className="sidebar" aria-label="Datasets">
      <h2>Datasets</h2>
      <input
        type="search"
        placeholder="Find a dataset…"
        aria-label="Find a dataset"
        ref={box}
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
        onKeyDown={onBoxKey}
      />
      <ul ref={list} onKeyDown={onListKey}>
        {shown.map((d) => (
          <li key={d.uuid}>
            <a
              data-dataset
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
