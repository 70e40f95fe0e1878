import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, errorText, viewPosition, type DatasetSummary, type Session } from '../lib/api';
import { keys, useTemplate } from '../lib/queries';
import type { Route } from '../lib/route';
import { RecordEditor } from '../editor/RecordEditor';
import { Splitter } from '../ui/Splitter';
import { toast } from '../ui/toasts';
import { RecordTable, type PickMods } from './RecordTable';
import { TemplateView } from './TemplateView';
import { BatchEdit } from './BatchEdit';
import { useColumns } from './columns';
import { ColumnChooser } from './ColumnChooser';
import { ExportDialog } from './ExportDialog';
import { FilterBar } from './FilterBar';
import { SaveSearchDialog } from './SavedSearches';
import { DatasetHead } from './dataset/DatasetHead';
import { DatasetToolbar, type ToolbarDialog } from './dataset/DatasetToolbar';
import { useListView } from './dataset/useListView';
import { usePaneWidth, PANE_MIN } from './dataset/usePaneWidth';
import { useSelection } from './dataset/useSelection';
import { cursorAfterDelete, cursorWithin, type AroundCursor } from './dataset/selectionModel';
import { useDeleteRecords } from './dataset/useDeleteRecords';
import { useRecordSteps, type PastBound } from './dataset/useRecordSteps';

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
  const { data: tpl, error } = useTemplate(summary.uuid);
  const list = useListView(summary.uuid, route, go);
  const { table } = list;
  const view = list.query;
  const [selected, sel, allPending] = useSelection(summary.uuid, view);
  const [dialog, setDialog] = useState<ToolbarDialog | null>(null);
  const [active, setActive] = useState(0);
  const [total, setTotal] = useState<number | null>(null);
  const [refused, setRefused] = useState<string | null>(null);
  /** The total is a lower bound for now: the service's count stopped at its cap. */
  const [capped, setCapped] = useState(false);
  const onTotal = useCallback((n: number, atLeast: boolean) => {
    setTotal(n);
    setCapped(atLeast);
  }, []);
  const activeNow = useRef(active);
  activeNow.current = active;
  const totalNow = useRef(0);
  totalNow.current = total ?? 0;
  /** Bumped by every pick (click, key) and record opened by link: the cursor put by the person. */
  const picks = useRef(0);
  const viewNow = useRef(view);
  viewNow.current = view;
  const cappedNow = useRef(capped);
  cappedNow.current = capped || total === null;
  // The list shrank under the cursor (rows deleted at its end, a sync): it goes to the last row.
  useEffect(() => {
    if (total !== null) setActive((a) => cursorWithin(a, total, capped));
  }, [total, capped]);
  /** Bumped to have the table fetch the exact count; `past` is where Next was asked to go beyond a lower bound. */
  const [askExact, setAskExact] = useState(0);
  const past = useRef<PastBound>(null);
  const [fresh, setFresh] = useState<string>();
  /**
   * The pane to take the focus in its first field once shown (Enter, double-click, new record):
   * that record's (`uuid`), or the next shown when the row was not read yet.
   */
  const [focusFor, setFocusFor] = useState<{ uuid?: string } | null>(null);
  const [batching, setBatching] = useState(false);
  const pane = usePaneWidth();
  const grid = useRef<HTMLDivElement>(null);
  const aroundCursor = useRef<((i: number, asked: ReadonlySet<string>) => AroundCursor) | null>(null);
  // Whether the pane follows the active row (after a click or key).
  const follow = useRef(false);
  const pick = useRef<PickMods | null>(null);
  const activeUuid = useRef<string | undefined>(undefined);
  const filterKey = view.filters ?? '';
  const cols = useColumns(summary.uuid, tpl);
  const shown = useRef(route.record);
  shown.current = route.record;

  useEffect(() => {
    setActive(0);
    // A Next still waiting for the exact count belongs to the view it was pressed in.
    past.current = null;
    sel.replace([], 0);
  }, [summary.uuid, table.q, table.sort, table.dir, filterKey, sel]);

  const refresh = useCallback(() => {
    void qc.invalidateQueries({ queryKey: keys.table(summary.uuid) });
    void qc.invalidateQueries({ queryKey: keys.datasets });
  }, [qc, summary.uuid]);

  const focusGrid = () => grid.current?.focus();
  const deletes = useDeleteRecords(summary.uuid, tpl, {
    onConfirmed: (uuids) => {
      // The button that asked goes (the pane closes) or is disabled (no selection left): the
      // focus goes to the list, on the row that takes the deleted one's place.
      focusGrid();
      sel.replace([]);
      if (shown.current && uuids.includes(shown.current)) go({ record: undefined });
      // The cursor moves once the service has answered, from what it really deleted (a refused
      // delete moves nothing), onto a record it names the new place of: taken now, while the
      // rows are there, and asked for then.
      const at = activeNow.current;
      const picked = picks.current;
      const viewAt = view;
      const viewKey = JSON.stringify(view);
      const around = aroundCursor.current?.(at, new Set(uuids)) ?? { at, after: [], before: [] };
      return (deleted) => {
        const target = cursorAfterDelete(around, deleted);
        // A key, click or link meanwhile has put the cursor where the person wants it; another
        // view has its own cursor. The list may have shrunk already (its effect ran): kept inside.
        const place = (i: number) => {
          if (picks.current !== picked || JSON.stringify(viewNow.current) !== viewKey) return;
          setActive(cursorWithin(i, totalNow.current, cappedNow.current));
        };
        if ('index' in target) return place(target.index);
        viewPosition(summary.uuid, target.uuid, viewAt).then(
          // Gone meanwhile (a sync, another window): the cursor keeps its index.
          (i) => place(i < 0 ? at : i + target.plus),
          // Unread, the cursor keeps its index (the list's shrinking still keeps it inside).
          () => {},
        );
      };
    },
    onDone: refresh,
  });

  // A click or key on row i: selection as in Zotero (plain replaces, Ctrl/Cmd toggles, Shift extends)
  // and the record pane follows the row.
  const onPick = useCallback(
    (i: number, uuid: string | undefined, mods: PickMods) => {
      // An explicit pick replaces a Next still waiting for the exact count.
      past.current = null;
      picks.current++;
      follow.current = true;
      pick.current = mods;
      setActive(i);
      if (mods.shift) void sel.range(i, uuid);
      else sel.setAnchor(i);
      if (uuid) applyPick(i, uuid);
    },
    // applyPick reads refs and the selection's actions (kept across renders); listing it would
    // rebuild every row.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [sel],
  );

  const applyPick = (_i: number, uuid: string) => {
    const mods = pick.current;
    pick.current = null;
    if (mods && !mods.shift) {
      if (mods.toggle) sel.toggle(uuid);
      else sel.replace([uuid]);
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
        picks.current++;
        follow.current = true;
        setActive(i);
        sel.replace([rec], i);
      },
      () => {},
    );
    return () => {
      gone = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [route.record, summary.uuid]);

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

  const steps = useRecordSteps({ active, total, capped, past, askExact: () => setAskExact((n) => n + 1), onPick });

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

  return (
    <main className="main">
      <DatasetHead summary={summary} tpl={tpl} route={route} go={go} onImportClosed={focusGrid} />
      {route.view === 'template' ? (
        <TemplateView tpl={tpl} dataset={summary.uuid} />
      ) : (
        <>
          <DatasetToolbar
            records={summary.records}
            search={list.search}
            onSearch={list.setSearch}
            onToList={focusGrid}
            total={total}
            capped={capped}
            narrowed={list.narrowed}
            sorted={!!table.sort}
            refused={refused}
            filters={table.filters.length}
            filtering={list.filtering}
            onFiltering={() => list.setFiltering((f) => !f)}
            onCountAll={() => setAskExact((n) => n + 1)}
            selected={selected.size}
            onDialog={setDialog}
            onCreate={() => void create()}
            onBatch={() => setBatching(true)}
            onDelete={() => void deletes.request([...selected])}
            record={route.record}
          />
          {list.filtering && (
            <div id="filter-bar">
              <FilterBar key={list.filterGen} tpl={tpl} filters={table.filters} onChange={list.onFilters} />
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
          {dialog === 'save' && <SaveSearchDialog dataset={summary.uuid} view={list.searchView} onClose={() => setDialog(null)} />}
          {dialog === 'export' && (
            <ExportDialog
              dataset={summary.uuid}
              view={list.searchView}
              columns={cols.columns}
              count={capped ? null : total}
              onClose={() => setDialog(null)}
            />
          )}
          <div
            ref={pane.workspace}
            className="workspace"
            style={{ ['--pane' as string]: route.record ? `${pane.width}px` : undefined }}
            data-with-pane={route.record ? 'true' : undefined}
          >
            <section className="records" aria-label="Records">
              <RecordTable
                dataset={summary.uuid}
                tpl={tpl}
                total={summary.records}
                state={table}
                onState={list.setTable}
                active={active}
                selected={selected}
                allPending={allPending}
                around={aroundCursor}
                pending={deletes.pending}
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
                onSelectAll={sel.all}
                onEscape={() => {
                  past.current = null;
                  if (route.record) go({ record: undefined });
                  else sel.replace([]);
                }}
                onDelete={() => void deletes.request([...selected])}
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
                <Splitter value={pane.width} min={PANE_MIN} max={pane.max} onChange={pane.set} label="Resize the record pane" />
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
                  onPrev={() => steps.step(-1)}
                  onNext={() => steps.step(1)}
                  onEscape={focusGrid}
                  onClose={() => {
                    go({ record: undefined });
                    focusGrid();
                  }}
                  onDelete={(u) => void deletes.request([u])}
                  onGone={sel.forget}
                  refocus={steps.refocus}
                />
              </>
            )}
          </div>
        </>
      )}
    </main>
  );
}
