import { useEffect, useRef } from 'react';
import { countOf } from '../../lib/numbers';
import { MoreMenu, useOverflow, type OverflowAction } from '../../ui/OverflowMenu';

/** The dialogs the toolbar opens. */
export type ToolbarDialog = 'columns' | 'save' | 'export';

/** The longest count a dataset of `records` shows. */
const longestCount = (records: number) => `${records.toLocaleString()} of ${records.toLocaleString()} match`;

/** What the match count says: "12 of 40 match", "300+ records", "40 records". */
function countText(total: number | null, capped: boolean, narrowed: boolean, records: number) {
  if (total === null) return '';
  const figure = `${total.toLocaleString()}${capped ? '+' : ''}`;
  if (narrowed) return `${figure} of ${records.toLocaleString()} match`;
  return capped ? `${figure} records` : countOf(total, 'record');
}

/** The records view's one-row toolbar: search, count, filters and the actions on records. */
export function DatasetToolbar(p: {
  /** Records in the dataset (the count's "of"). */
  records: number;
  search: string;
  onSearch: (text: string) => void;
  /** Arrow down from the search box. */
  onToList: () => void;
  total: number | null;
  capped: boolean;
  narrowed: boolean;
  sorted: boolean;
  refused: string | null;
  filters: number;
  filtering: boolean;
  onFiltering: () => void;
  onCountAll: () => void;
  selected: number;
  onDialog: (d: ToolbarDialog) => void;
  onCreate: () => void;
  onBatch: () => void;
  onDelete: () => void;
  /** Changes the width of the toolbar's other parts (the pane opening). */
  record?: string;
}) {
  const toolbar = useOverflow(4, [p.total, p.capped, p.selected, p.filters, p.record]);
  // The toolbar keeps one row: what does not fit goes into More, Save search… first and Batch
  // edit… last. `at`: its place in the row, which the menu keeps.
  const optional: (OverflowAction & { at: number })[] = [
    { key: 'batch', at: 4, label: 'Batch edit…', disabled: p.selected === 0, onClick: p.onBatch },
    { key: 'export', at: 3, label: 'Export…', onClick: () => p.onDialog('export') },
    { key: 'columns', at: 2, label: 'Columns…', onClick: () => p.onDialog('columns') },
    { key: 'save', at: 1, label: 'Save search…', disabled: !p.narrowed && !p.sorted, onClick: () => p.onDialog('save') },
  ];
  const slot = (key: string) => {
    const i = optional.findIndex((a) => a.key === key);
    const a = optional[i]!;
    // Hidden, not unmounted, while in More: a dialog it opened still gives the focus back to it.
    return (
      <button type="button" data-overflow={i} hidden={i >= toolbar.shown} disabled={a.disabled} onClick={a.onClick}>
        {a.label}
      </button>
    );
  };
  const overflow = optional.slice(toolbar.shown).sort((a, b) => a.at - b.at);

  // Ctrl/Cmd+F goes to the search box from anywhere on the screen but a dialog (which keeps its
  // keys): the browser's own find sees only the rows drawn, not the dataset, and Electron has none.
  const searchBox = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const on = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() !== 'f' || !(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey) return;
      if (document.querySelector('dialog[open]')) return;
      e.preventDefault();
      searchBox.current?.focus();
      searchBox.current?.select();
    };
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  }, []);

  return (
    <div ref={toolbar.bar} className="toolbar" role="toolbar" aria-label="Record actions">
      <input
        ref={searchBox}
        type="search"
        placeholder="Search records…"
        aria-label="Search records"
        aria-keyshortcuts="Control+F Meta+F"
        title={'Words match as you type. "two words" finds a phrase; -word leaves out records with that word. Ctrl+F comes here.'}
        value={p.search}
        onChange={(e) => p.onSearch(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') p.onSearch('');
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            p.onToList();
          }
        }}
      />
      {/* As wide as the longest count this dataset shows (a hidden copy in the same grid
          cell), so the buttons after it stay put as the count changes. */}
      <span className="count-box">
        <span className="count muted" role="status" data-testid="match-count">
          {countText(p.total, p.capped, p.narrowed, p.records)}
        </span>
        <span className="count count-sizer" aria-hidden="true">
          {longestCount(p.records)}
        </span>
      </span>
      {/* A refused search is said at once (the list shows it too, where a grid allows no alert). */}
      <span className="sr-only" role="alert" data-testid="search-refused">
        {p.refused ? `Search refused: ${p.refused}` : ''}
      </span>
      {p.capped && (
        // The service stops counting at its cap; the whole count is a deliberate, slower ask.
        <button type="button" className="link" onClick={p.onCountAll} title="Count every match (slower on large datasets)">
          Count all
        </button>
      )}
      <button type="button" aria-expanded={p.filtering} aria-controls="filter-bar" onClick={p.onFiltering} data-testid="filters-toggle">
        Filters{p.filters ? ` (${p.filters})` : ''}
      </button>
      {slot('save')}
      <span className="spacer" />
      {slot('columns')}
      {slot('export')}
      <button type="button" onClick={p.onCreate}>
        New record
      </button>
      {slot('batch')}
      <button type="button" className="danger" disabled={p.selected === 0} onClick={p.onDelete}>
        Delete selected{p.selected ? ` (${p.selected.toLocaleString()})` : ''}
      </button>
      <MoreMenu actions={overflow} />
    </div>
  );
}
