import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, errorText, viewPosition, viewUuids, type DatasetSummary, type Session } from '../lib/api';
import { keys, useTemplate } from '../lib/queries';
import type { Route } from '../lib/route';
import { paneFocusKey } from '../editor/paneFocus';
import { focusInPlace } from '../lib/focusInPlace';
import { RecordEditor } from '../editor/RecordEditor';
import { confirmDialog } from '../ui/Dialog';
import { Splitter } from '../ui/Splitter';
import { DeleteDatasetButton } from './DeleteDataset';
import { Time } from '../ui/Time';
import { countOf } from '../lib/numbers';
import { toast } from '../ui/toasts';
import { offerUndo, pushOperation, useEdits } from '../lib/edits';
import { deleteRecords, UNDO_TOAST_MS } from '../lib/recordDeletes';
import { firstNames } from '../lib/namedRecords';
import { namedList } from '../lib/namedList';
import { RecordTable, queryOf, type PickMods, type TableState } from './RecordTable';
import { TemplateView } from './TemplateView';
import { BatchEdit } from './BatchEdit';
import { useColumns } from './columns';
import { ColumnChooser } from './ColumnChooser';
import { ExportDialog } from './ExportDialog';
import { FilterBar } from './FilterBar';
import { SaveSearchDialog, useSavedSearches } from './SavedSearches';
import type { SearchView, ViewFilter } from '../../../shared/schemas/view';
import { ImportCsv } from './ImportCsv';
import { MoreMenu, useOverflow, type OverflowAction } from '../ui/OverflowMenu';

/** The longest a delete's confirmation waits for the names of records it has not loaded. */
const NAMES_WAIT_MS = 300;
/** The list never gets narrower than this; the record pane never narrower than PANE_MIN. */
const LIST_MIN = 360;
const PANE_MIN = 340;
const PANE_KEY = 'odr.paneWidth';

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/** Width of an element (a callback ref: it mounts after the template loads), followed as the window or panels change it. */
function useWidth(): [number, (el: HTMLElement | null) => void] {
  const [el, setEl] = useState<HTMLElement | null>(null);
  const [w, setW] = useState(0);
  useEffect(() => {
    if (!el) return;
    const ro = new ResizeObserver(([e]) => setW(e!.contentRect.width));
    ro.observe(el);
    return () => ro.disconnect();
  }, [el]);
  return [w, setEl];
}

/** The longest count a dataset of `records` shows. */
const longestCount = (records: number) => `${records.toLocaleString()} of ${records.toLocaleString()} match`;

const isField = (el: Element | null) => !!el?.closest('input, textarea, select, [contenteditable=true]');

export function DatasetScreen({
  summary,
  route,
  go,
  session,
}: {
  summary: DatasetSummary;
  route: Route;
  go: (r: Partial<Route>) => void;
  session: Session;
}) {
  const qc = useQueryClient();
  const { undo: undoStep } = useEdits();
  const { data: tpl, error } = useTemplate(summary.uuid);
  const [search, setSearch] = useState('');
  const q = useDebounced(search.trim(), 200);
  const [table, setTable] = useState<TableState>({ q: '', dir: 'asc', filters: [] });
  const [filtering, setFiltering] = useState(false);
  /** Bumped when a saved search replaces the filters: the filter bar starts over from them. */
  const [filterGen, setFilterGen] = useState(0);
  const [dialog, setDialog] = useState<'columns' | 'save' | 'export' | null>(null);
  const [active, setActive] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  /** The selection as last rendered, for handlers kept across renders (onPick). */
  const selectedNow = useRef(selected);
  selectedNow.current = selected;
  /**
   * The Shift-click range being read, with the rows Ctrl-clicked meanwhile (uuid → selected or
   * not): they go on top of the range once it is read. Any other change of the selection made
   * meanwhile (a plain click, Select all, a newer Shift-click) supersedes the range.
   */
  const ranging = useRef<{ toggled: Map<string, boolean> } | null>(null);
  /** Replaces the selection: a range still being read no longer lands. */
  const replaceSelection = useCallback((uuids: Iterable<string>) => {
    ranging.current = null;
    setSelected(new Set(uuids));
  }, []);
  const [pending, setPending] = useState<Set<string>>(new Set());
  const [total, setTotal] = useState<number | null>(null);
  const [refused, setRefused] = useState<string | null>(null);
  /** The total is a lower bound for now: the service's count stopped at its cap. */
  const [capped, setCapped] = useState(false);
  const onTotal = useCallback((n: number, atLeast: boolean) => {
    setTotal(n);
    setCapped(atLeast);
  }, []);
  /** Bumped to have the table fetch the exact count; `past` is where Next was asked to go beyond a lower bound. */
  const [askExact, setAskExact] = useState(0);
  const past = useRef<{ to: number; from: number } | null>(null);
  const [fresh, setFresh] = useState<string>();
  /**
   * The pane to take the focus in its first field once shown (Enter, double-click, new record):
   * that record's (`uuid`), or the next shown when the row was not read yet.
   */
  const [focusFor, setFocusFor] = useState<{ uuid?: string } | null>(null);
  const [batching, setBatching] = useState(false);
  const [importingCsv, setImportingCsv] = useState(false);
  const [pane, setPane] = useState(() => Number(localStorage.getItem(PANE_KEY)) || 480);
  const grid = useRef<HTMLDivElement>(null);
  const [width, workspace] = useWidth();
  // Where a Shift range starts; whether the pane follows the active row (after a click or key).
  const anchor = useRef(0);
  const follow = useRef(false);
  const pick = useRef<PickMods | null>(null);
  const activeUuid = useRef<string | undefined>(undefined);
  const view = queryOf(table);
  const filterKey = view.filters ?? '';
  const cols = useColumns(summary.uuid, tpl);
  const saved = useSavedSearches(summary.uuid);
  const shown = useRef(route.record);
  shown.current = route.record;
  const toolbar = useOverflow(4, [total, capped, selected.size, table.filters.length, route.record]);

  useEffect(() => setTable((t) => ({ ...t, q })), [q]);
  useEffect(() => {
    setActive(0);
    anchor.current = 0;
    // A Next still waiting for the exact count belongs to the view it was pressed in.
    past.current = null;
    replaceSelection([]);
  }, [summary.uuid, table.q, table.sort, table.dir, filterKey, replaceSelection]);
  const onFilters = useCallback((filters: ViewFilter[]) => setTable((t) => ({ ...t, filters })), []);

  // A saved search opened from the sidebar (#…?search=<id>): its search, filters and sort replace
  // the view; the id leaves the hash so opening it again applies it again.
  useEffect(() => {
    const id = route.search;
    if (!id || !saved.data) return;
    const s = saved.data.find((x) => String(x.id) === id);
    go({ search: undefined });
    if (!s) {
      toast({ kind: 'error', text: 'That saved search no longer exists' });
      return;
    }
    setSearch(s.view.q ?? '');
    setTable({ q: (s.view.q ?? '').trim(), sort: s.view.sort, dir: s.view.dir ?? 'asc', filters: s.view.filters ?? [] });
    setFiltering((s.view.filters ?? []).length > 0);
    setFilterGen((g) => g + 1);
  }, [route.search, saved.data, go]);

  const refresh = useCallback(() => {
    void qc.invalidateQueries({ queryKey: keys.table(summary.uuid) });
    void qc.invalidateQueries({ queryKey: keys.datasets });
  }, [qc, summary.uuid]);

  const focusGrid = () => grid.current?.focus();
  /** A selector for the control to focus in the next record's pane (see step). */
  const refocus = useRef<string | null>(null);
  /** A record gone from the service leaves the selection: "Delete selected" must not count it. */
  const unselect = useCallback(
    (uuid: string) =>
      setSelected((s) => {
        if (!s.has(uuid)) return s;
        const n = new Set(s);
        n.delete(uuid);
        return n;
      }),
    [],
  );

  /**
   * Selects the stretch between the anchor and `i` (uuids fetched: the rows may not be loaded).
   * The row clicked (`uuid`) is selected at once, so its checkbox shows the click; if the range
   * cannot be read, only that row leaves the selection again: what the user selected while the
   * read was on its way (a Ctrl-click, Select all) stays. Once read, the range replaces the
   * selection, with the rows Ctrl-clicked meanwhile left as those clicks left them.
   */
  const selectRange = async (i: number, uuid?: string) => {
    const [from, to] = [Math.min(anchor.current, i), Math.max(anchor.current, i)];
    const added = uuid && !selectedNow.current.has(uuid) ? uuid : null;
    const run = { toggled: new Map<string, boolean>() };
    ranging.current = run;
    if (added) setSelected((s) => new Set([...s, added]));
    try {
      const { uuids } = await viewUuids(summary.uuid, { ...view, offset: from, limit: to - from + 1 });
      if (ranging.current !== run) return;
      const next = new Set(uuids);
      // What the person did last wins: a row Ctrl-clicked during the read keeps that click's state.
      for (const [u, on] of run.toggled) {
        if (on) next.add(u);
        else next.delete(u);
      }
      setSelected(next);
    } catch (e) {
      if (ranging.current !== run) return;
      if (added && !run.toggled.has(added)) unselect(added);
      toast({ kind: 'error', text: `Could not select the range: ${errorText(e)}` });
    } finally {
      if (ranging.current === run) ranging.current = null;
    }
  };

  // A click or key on row i: selection as in Zotero (plain replaces, Ctrl/Cmd toggles, Shift extends)
  // and the record pane follows the row.
  const onPick = useCallback(
    (i: number, uuid: string | undefined, mods: PickMods) => {
      // An explicit pick replaces a Next still waiting for the exact count.
      past.current = null;
      follow.current = true;
      pick.current = mods;
      setActive(i);
      if (mods.shift) void selectRange(i, uuid);
      else anchor.current = i;
      if (uuid) applyPick(i, uuid);
    },
    // applyPick and selectRange read refs and the latest table; listing them would rebuild every row.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [summary.uuid, table],
  );

  const applyPick = (_i: number, uuid: string) => {
    const mods = pick.current;
    pick.current = null;
    if (mods && !mods.shift) {
      if (!mods.toggle) replaceSelection([uuid]);
      else {
        const run = ranging.current;
        setSelected((s) => {
          const n = new Set(s);
          if (n.has(uuid)) n.delete(uuid);
          else n.add(uuid);
          // Recorded here, from the selection the toggle saw (the same on a repeated call).
          run?.toggled.set(uuid, n.has(uuid));
          return n;
        });
      }
    }
    activeUuid.current = uuid;
    if (follow.current && uuid !== shown.current) go({ record: uuid });
  };

  const onActiveRecord = useCallback((i: number, uuid: string) => {
    activeUuid.current = uuid;
    if (pick.current) applyPick(i, uuid);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // A record opened another way (a link, reload, a new record): find its row and make it active.
  useEffect(() => {
    const rec = route.record;
    if (!rec || rec === activeUuid.current) return;
    let gone = false;
    viewPosition(summary.uuid, rec, view).then(
      (i) => {
        if (gone || i < 0) return;
        follow.current = true;
        anchor.current = i;
        setActive(i);
        replaceSelection([rec]);
      },
      () => {},
    );
    return () => {
      gone = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [route.record, summary.uuid]);

  const selectAll = async (on: boolean) => {
    if (!on) return replaceSelection([]);
    try {
      const { uuids } = await viewUuids(summary.uuid, view);
      replaceSelection(uuids);
    } catch (e) {
      toast({ kind: 'error', text: `Could not select all: ${errorText(e)}` });
    }
  };

  const create = async () => {
    try {
      const rec = await api.createRecord(summary.uuid);
      refresh();
      setFresh(rec.record_uuid);
      setTimeout(() => setFresh((f) => (f === rec.record_uuid ? undefined : f)), 2500);
      go({ record: rec.record_uuid });
      setFocusFor({ uuid: rec.record_uuid });
    } catch (e) {
      toast({ kind: 'error', text: `No record created: ${errorText(e)}` });
    }
  };

  // A delete goes at once and is a step of the undo history like any other change (Ctrl+Z puts
  // the records back from the service's record trash, Ctrl+Shift+Z deletes them again). The
  // rows say "deleting…" while the requests run.
  const requestDelete = async (uuids: string[]) => {
    if (!uuids.length) return;
    const what = uuids.length === 1 ? 'this record' : `${uuids.length.toLocaleString()} records`;
    // Named, so a record clicked only to read it is not deleted unseen with the ticked ones.
    // A busy service must not hold the dialog back: past NAMES_WAIT_MS it opens without names.
    const asked = tpl ? firstNames(qc, summary.uuid, tpl, uuids) : Promise.resolve(null);
    const named = await Promise.race([asked, new Promise<null>((r) => setTimeout(() => r(null), NAMES_WAIT_MS))]);
    const names = named ? namedList(named, uuids.length) : '';
    const ok = await confirmDialog({
      title: uuids.length === 1 ? 'Delete this record?' : `Delete ${what}?`,
      body: `${names ? `Deletes ${names}, with ${uuids.length === 1 ? 'its' : 'their'}` : uuids.length === 1 ? 'Its' : 'Their'} values, child records and files. Undo (Ctrl+Z) brings them back.`,
      confirm: 'Delete',
      danger: true,
    });
    if (!ok) return;
    // The button that asked goes (the pane closes) or is disabled (no selection left): the focus
    // goes to the list, on the row that takes the deleted one's place.
    focusGrid();
    setPending((p) => new Set([...p, ...uuids]));
    replaceSelection([]);
    if (shown.current && uuids.includes(shown.current)) go({ record: undefined });
    const { op, error } = await deleteRecords(uuids, what);
    setPending((p) => new Set([...p].filter((u) => !uuids.includes(u))));
    refresh();
    if (op) pushOperation(op);
    if (error) toast({ kind: 'error', text: `Not ${op ? 'all ' : ''}deleted: ${errorText(error)}` });
    else if (op) offerUndo(op, `Deleted ${what}`, UNDO_TOAST_MS, undoStep);
  };

  const step = (by: number) => {
    if (total === null || total === 0) return;
    // A capped total is a lower bound: Next past it waits for the exact count, then moves on.
    if (capped && active + by > total - 1) {
      past.current = { to: active + by, from: active };
      setAskExact((n) => n + 1);
      return;
    }
    const to = Math.max(0, Math.min(total - 1, active + by));
    if (to === active) return;
    // The pane is drawn anew for the next record: what had the focus in it (‹ ›, a field left
    // with Alt+↓) has it again there, rather than leaving it on the page body.
    const a = document.activeElement;
    refocus.current = a instanceof HTMLElement && a.closest('aside.editor') ? paneFocusKey(a) : null;
    // Leaving the field saves it (or keeps its draft) before the record changes; the focus waits
    // on the pane (not the body, where Escape would reach nothing) until refocus places it.
    if (a instanceof HTMLElement && isField(a)) {
      const pane = a.closest<HTMLElement>('aside.editor');
      if (pane) focusInPlace(pane);
      else a.blur();
    }
    onPick(to, undefined, {});
  };

  useEffect(() => {
    if (past.current === null || capped || total === null) return;
    const { to: wanted, from } = past.current;
    past.current = null;
    // Acts only from the row Next was pressed on (a row opened another way meanwhile wins).
    if (from !== active) return;
    const to = Math.min(total - 1, wanted);
    if (to > active) step(to - active);
    // Only the arrival of the exact count moves on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [capped, total]);

  // Alt+↓ / Alt+↑: next and previous record from anywhere in the dataset, fields included.
  useEffect(() => {
    const on = (e: KeyboardEvent) => {
      if (!e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        step(e.key === 'ArrowDown' ? 1 : -1);
      }
    };
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  });

  useEffect(() => {
    if (!route.record) document.title = `${summary.name} — odr-desktop`;
  }, [route.record, summary.name]);

  if (error)
    return (
      <main className="main">
        <p role="alert">The template could not be read: {errorText(error)}</p>
      </main>
    );
  if (!tpl)
    return (
      <main className="main" aria-busy="true">
        <p className="muted">Loading {summary.name}…</p>
      </main>
    );

  const paneMax = Math.max(PANE_MIN, width - LIST_MIN - 12);
  const paneWidth = Math.max(PANE_MIN, Math.min(pane, paneMax));
  const setPaneWidth = (px: number) => {
    setPane(px);
    localStorage.setItem(PANE_KEY, String(px));
  };
  const narrowed = !!table.q || table.filters.length > 0;
  const figure = total === null ? '' : `${total.toLocaleString()}${capped ? '+' : ''}`;
  const count =
    total === null
      ? ''
      : narrowed
        ? `${figure} of ${summary.records.toLocaleString()} match`
        : capped
          ? `${figure} records`
          : countOf(total, 'record');
  // The toolbar keeps one row: what does not fit goes into More, Save search… first and Batch
  // edit… last. `at`: its place in the row, which the menu keeps.
  const optional: (OverflowAction & { at: number })[] = [
    { key: 'batch', at: 4, label: 'Batch edit…', disabled: selected.size === 0, onClick: () => setBatching(true) },
    { key: 'export', at: 3, label: 'Export…', onClick: () => setDialog('export') },
    { key: 'columns', at: 2, label: 'Columns…', onClick: () => setDialog('columns') },
    { key: 'save', at: 1, label: 'Save search…', disabled: !narrowed && !table.sort, onClick: () => setDialog('save') },
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
  const searchView: SearchView = {
    q: table.q || undefined,
    filters: table.filters.length ? table.filters : undefined,
    sort: table.sort,
    dir: table.sort ? table.dir : undefined,
  };

  return (
    <main className="main">
      <header className="dataset-head">
        <div>
          <h1>{summary.name}</h1>
          <p className="muted">
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
          <button type="button" onClick={() => setImportingCsv(true)}>
            Import CSV…
          </button>
          <DeleteDatasetButton
            summary={summary}
            tpl={tpl}
            onDeleted={() => go({ dataset: undefined, record: undefined, view: 'records' })}
          />
        </div>
      </header>
      {importingCsv && (
        <ImportCsv
          dataset={summary.uuid}
          name={summary.name}
          onClose={() => {
            setImportingCsv(false);
            focusGrid();
          }}
        />
      )}
      {route.view === 'template' ? (
        <TemplateView tpl={tpl} dataset={summary.uuid} />
      ) : (
        <>
          <div ref={toolbar.bar} className="toolbar" role="toolbar" aria-label="Record actions">
            <input
              type="search"
              placeholder="Search records…"
              aria-label="Search records"
              title={'Words match as you type. "two words" finds a phrase; -word leaves out records with that word.'}
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Escape') setSearch('');
                if (e.key === 'ArrowDown') {
                  e.preventDefault();
                  focusGrid();
                }
              }}
            />
            {/* As wide as the longest count this dataset shows (a hidden copy in the same grid
                cell), so the buttons after it stay put as the count changes. */}
            <span className="count-box">
              <span className="count muted" role="status" data-testid="match-count">
                {count}
              </span>
              <span className="count count-sizer" aria-hidden="true">
                {longestCount(summary.records)}
              </span>
            </span>
            {/* A refused search is said at once (the list shows it too, where a grid allows no alert). */}
            <span className="sr-only" role="alert" data-testid="search-refused">
              {refused ? `Search refused: ${refused}` : ''}
            </span>
            {capped && (
              // The service stops counting at its cap; the whole count is a deliberate, slower ask.
              <button
                type="button"
                className="link"
                onClick={() => setAskExact((n) => n + 1)}
                title="Count every match (slower on large datasets)"
              >
                Count all
              </button>
            )}
            <button
              type="button"
              aria-expanded={filtering}
              aria-controls="filter-bar"
              onClick={() => setFiltering((f) => !f)}
              data-testid="filters-toggle"
            >
              Filters{table.filters.length ? ` (${table.filters.length})` : ''}
            </button>
            {slot('save')}
            <span className="spacer" />
            {slot('columns')}
            {slot('export')}
            <button type="button" onClick={() => void create()}>
              New record
            </button>
            {slot('batch')}
            <button type="button" className="danger" disabled={selected.size === 0} onClick={() => void requestDelete([...selected])}>
              Delete selected{selected.size ? ` (${selected.size.toLocaleString()})` : ''}
            </button>
            <MoreMenu actions={overflow} />
          </div>
          {filtering && (
            <div id="filter-bar">
              <FilterBar key={filterGen} tpl={tpl} filters={table.filters} onChange={onFilters} />
            </div>
          )}
          {dialog === 'columns' && (
            <ColumnChooser
              tpl={tpl}
              layout={cols.layout}
              onChange={(l) => cols.setLayout(l)}
              onReset={cols.reset}
              onClose={() => setDialog(null)}
            />
          )}
          {dialog === 'save' && <SaveSearchDialog dataset={summary.uuid} view={searchView} onClose={() => setDialog(null)} />}
          {dialog === 'export' && (
            <ExportDialog
              dataset={summary.uuid}
              view={searchView}
              columns={cols.columns}
              count={capped ? null : total}
              onClose={() => setDialog(null)}
            />
          )}
          <div
            ref={workspace}
            className="workspace"
            style={{ ['--pane' as string]: route.record ? `${paneWidth}px` : undefined }}
            data-with-pane={route.record ? 'true' : undefined}
          >
            <section className="records" aria-label="Records">
              <RecordTable
                dataset={summary.uuid}
                tpl={tpl}
                total={summary.records}
                state={table}
                onState={setTable}
                active={active}
                selected={selected}
                pending={pending}
                fresh={fresh}
                gridRef={grid}
                columns={cols.columns}
                onResize={cols.resize}
                onPick={onPick}
                onActiveRecord={onActiveRecord}
                onTotal={onTotal}
                onRefused={setRefused}
                askExact={askExact}
                onOpen={(i, uuid) => {
                  onPick(i, uuid, {});
                  setFocusFor({ uuid });
                }}
                onSelectAll={selectAll}
                onEscape={() => {
                  past.current = null;
                  if (route.record) go({ record: undefined });
                  else replaceSelection([]);
                }}
                onDelete={() => void requestDelete([...selected])}
              />
            </section>
            {batching && (
              <BatchEdit
                dataset={summary.uuid}
                tpl={tpl}
                records={[...selected]}
                onClose={() => {
                  setBatching(false);
                  focusGrid();
                }}
              />
            )}
            {route.record && (
              <>
                <Splitter value={paneWidth} min={PANE_MIN} max={paneMax} onChange={setPaneWidth} label="Resize the record pane" />
                <RecordEditor
                  key={route.record}
                  uuid={route.record}
                  tpl={tpl}
                  session={session}
                  datasetName={summary.name}
                  position={total !== null ? { index: active, total, atLeast: capped } : undefined}
                  // Only the pane of the record asked for: one still showing (arrow keys just ahead of
                  // Enter) would take the focus and lose it when that record's pane replaces it.
                  focusFirst={focusFor !== null && (focusFor.uuid ?? route.record) === route.record}
                  onFocused={() => setFocusFor(null)}
                  onPrev={() => step(-1)}
                  onNext={() => step(1)}
                  onEscape={focusGrid}
                  onClose={() => {
                    go({ record: undefined });
                    focusGrid();
                  }}
                  onDelete={(u) => void requestDelete([u])}
                  onGone={unselect}
                  refocus={refocus}
                />
              </>
            )}
          </div>
        </>
      )}
    </main>
  );
}
