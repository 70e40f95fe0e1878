import { useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import type { OdrRecord } from '../../../shared/schemas/record';
import type { ViewQuery } from '../../../shared/schemas/selection';
import { MAX_COLUMN_WIDTH, MIN_COLUMN_WIDTH, type ViewFilter } from '../../../shared/schemas/view';
import type { Template } from '../../../shared/schemas/template';
import { api, errorText, tablePage } from '../lib/api';
import { WholeWords } from '../ui/WholeWords';
import { keys, seedRecord } from '../lib/queries';
import { groupImages } from '../editor/imageGroups';
import { recordName } from '../../../shared/recordName';
import { PluginCell } from '../plugins';
import { cellText } from '../lib/cellText';
import { Splitter } from '../ui/Splitter';
import { ID_KEY, type Column } from './columns';
import { allState, aroundCursor, type AroundCursor } from './dataset/selectionModel';
import { headerKey } from './dataset/headerKeys';
import { laidOutShift, observeScaledRect, scaledScroller, scrollLimit, type ScaledScroller } from '../lib/scaledScroller';

export const PAGE = 100;
const ROW_HEIGHT = 36;
const HEAD_HEIGHT = 34;
const ANCHOR_PX = 10_000 * ROW_HEIGHT;
/** Rows of look-ahead when asking for pages (see the page range below). */
const LOOKAHEAD = 60;
/** Rows this close to a capped total's lower bound (in view or active) ask for the exact count. */
const NEAR_BOUND = 200;
/** ~300 rows a second: faster than anyone reads. */
const FLYING_PX_PER_MS = 10;
// Stable across renders: the virtualizer re-measures all rows when its estimator changes.
const rowHeight = () => ROW_HEIGHT;
// Lowered only by the browser tests, through the page's address (see scrollLimit).
const SCROLL_LIMIT = scrollLimit(typeof window === 'undefined' ? '' : window.location.search);
/** How a keyboard sizes a column: its resize handle is no Tab stop (see headerKeys.ts). */
const RESIZE_HINT = 'Shift+Left or Shift+Right arrow makes the column narrower or wider';
/** Check box and pinned name: the fixed columns before the chosen ones. */
const FIXED = { check: 36, name: 200 };

/**
 * A header control reached by Tab, shown beside the pinned columns rather than under them. The
 * browser's own focus scroll (after this event) knows nothing of sticky cells: it can leave a
 * control under Name, or jump to the far end for a column's resize handle. One frame later the
 * list is put where the control shows whole with its column's start when both fit, else the
 * control alone (its start first when the list is narrower still).
 */
function revealBesidePins(sc: HTMLElement | null, el: HTMLElement) {
  if (!sc || el.closest('.pin')) return;
  requestAnimationFrame(() => {
    const pinned = FIXED.check + FIXED.name;
    const origin = sc.getBoundingClientRect().left + sc.clientLeft - sc.scrollLeft;
    const own = el.getBoundingClientRect();
    const cell = (el.closest('.head-cell') ?? el).getBoundingClientRect();
    const free = sc.clientWidth - pinned;
    const end = own.right - origin;
    const start = end - (cell.left - origin) <= free ? cell.left - origin : own.left - origin;
    if (start < sc.scrollLeft + pinned) sc.scrollLeft = start - pinned;
    else if (end > sc.scrollLeft + sc.clientWidth) sc.scrollLeft = Math.min(start - pinned, end - sc.clientWidth);
  });
}

/** The list's view: full-text search, per-field filters, sort. */
export interface TableState {
  q: string;
  sort?: string;
  dir: 'asc' | 'desc';
  filters: ViewFilter[];
}

/** The view as the /local list routes read it. */
export const queryOf = (s: TableState): ViewQuery => ({
  q: s.q || undefined,
  sort: s.sort,
  dir: s.dir,
  filters: s.filters.length ? JSON.stringify(s.filters) : undefined,
});

/** How a click or key changes the selection: replace it, toggle one record, or extend a range. */
export interface PickMods {
  shift?: boolean;
  toggle?: boolean;
}

export const rowId = (grid: string, i: number) => `${grid}-row-${i}`;

const Row = memo(function Row({
  grid,
  rec,
  tpl,
  cols,
  index,
  top,
  active,
  selected,
  pending,
  fresh,
  onPick,
  onOpen,
}: {
  grid: string;
  rec: OdrRecord | undefined;
  tpl: Template;
  cols: Column[];
  index: number;
  top: number;
  active: boolean;
  selected: boolean;
  pending: boolean;
  fresh: boolean;
  onPick: (i: number, uuid: string | undefined, mods: PickMods) => void;
  onOpen: (i: number, uuid: string) => void;
}) {
  const qc = useQueryClient();
  const style = { transform: `translateY(${top}px)` };
  if (!rec) {
    return (
      <div role="row" id={rowId(grid, index)} aria-rowindex={index + 2} className={`row loading${active ? ' active' : ''}`} style={style}>
        <div role="gridcell" className="cell muted">
          …
        </div>
      </div>
    );
  }
  const name = recordName(rec, tpl);
  const click = (e: MouseEvent) => {
    // Shift-click would also select the page's text.
    if (e.shiftKey) window.getSelection()?.removeAllRanges();
    seedRecord(qc, rec);
    onPick(index, rec.record_uuid, { shift: e.shiftKey, toggle: e.ctrlKey || e.metaKey });
  };
  return (
    <div
      role="row"
      id={rowId(grid, index)}
      aria-rowindex={index + 2}
      aria-selected={selected}
      aria-label={name}
      data-record={rec.record_uuid}
      className={`row${active ? ' active' : ''}${selected ? ' selected' : ''}${pending ? ' pending-delete' : ''}${fresh ? ' fresh' : ''}`}
      style={style}
      onClick={click}
      onDoubleClick={() => onOpen(index, rec.record_uuid)}
    >
      <div role="gridcell" className="cell check pin">
        <input
          type="checkbox"
          checked={selected}
          aria-label={`Select ${name}`}
          tabIndex={-1}
          onClick={(e) => {
            e.stopPropagation();
            onPick(index, rec.record_uuid, { toggle: true, shift: e.shiftKey });
          }}
          onChange={() => {}}
        />
      </div>
      <div role="gridcell" className="cell name pin" title={name}>
        <span>{name}</span>
      </div>
      {cols.map(({ key, field: f }) => {
        if (!f)
          return (
            <div role="gridcell" key={key} className="cell id">
              {rec.internal_id}
            </div>
          );
        if (f.fieldtype === 'Image') {
          const e = rec.fields.find((x) => x.field_uuid === f.field_uuid);
          const first = groupImages(e?.files ?? [])[0];
          const text = cellText(rec, f);
          // The count shows even when no image is on this computer to preview.
          return (
            <div role="gridcell" key={f.field_uuid} className="cell img" title={text || undefined}>
              {first && first.original.content_local !== false && (
                <img src={api.fileUrl((first.thumb ?? first.original).file_uuid)} alt="" height={28} loading="lazy" />
              )}
              {text}
            </div>
          );
        }
        const text = cellText(rec, f);
        return (
          <div role="gridcell" key={f.field_uuid} className="cell" title={text || undefined}>
            <PluginCell field={f} text={text} />
          </div>
        );
      })}
      {pending && (
        <div role="gridcell" className="cell muted">
          deleting…
        </div>
      )}
    </div>
  );
});

/**
 * Every record of a dataset in one virtualized ARIA grid: pages of 100 are fetched as they
 * scroll into view — through the ODR list endpoint in storage order, through the local table
 * route when sorted or searched. One tab stop; the active row is the grid's active descendant.
 */
export function RecordTable({
  dataset,
  tpl,
  total: knownTotal,
  state,
  onState,
  active,
  selected,
  pending,
  fresh,
  onPick,
  onOpen,
  onActiveRecord,
  onTotal,
  onRefused,
  askExact,
  onSelectAll,
  onEscape,
  onDelete,
  allPending,
  around,
  gridRef,
  columns: cols,
  onResize,
}: {
  dataset: string;
  tpl: Template;
  total: number;
  state: TableState;
  onState: (s: TableState) => void;
  active: number;
  selected: ReadonlySet<string>;
  pending: ReadonlySet<string>;
  fresh?: string;
  onPick: (i: number, uuid: string | undefined, mods: PickMods) => void;
  onOpen: (i: number, uuid: string | undefined) => void;
  /** The active row's record once it is loaded. */
  onActiveRecord: (i: number, uuid: string) => void;
  /** `capped`: `n` is a lower bound (the service stopped counting); the exact figure follows. */
  onTotal: (n: number, capped: boolean) => void;
  /** Why the service refused the search (null: it did not), for the screen's live region. */
  onRefused: (why: string | null) => void;
  /** Bumped to ask for the exact count of a capped total (Next past the lower bound). */
  askExact: number;
  /** Settles once the selection holds the whole view (or could not). */
  onSelectAll: (on: boolean) => Promise<void>;
  onEscape: () => void;
  onDelete: () => void;
  /** Select all's read is on its way and nothing has cancelled it: the header box shows it asked. */
  allPending: boolean;
  /**
   * Set here to tell the loaded rows around row `i` when the records `asked` are to be deleted:
   * the screen places the cursor from them once the delete is answered.
   */
  around: React.RefObject<((i: number, asked: ReadonlySet<string>) => AroundCursor) | null>;
  gridRef: React.RefObject<HTMLDivElement | null>;
  /** The chosen columns after the pinned name, with their widths. */
  columns: Column[];
  onResize: (key: string, width: number) => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  // One element, both: stable, so React does not detach and attach it again at every render.
  const gridAndScroller = useCallback(
    (el: HTMLDivElement | null) => {
      scroller.current = el;
      gridRef.current = el;
    },
    [gridRef],
  );
  const plain = !state.q && !state.sort && state.filters.length === 0;
  const query = queryOf(state);
  const viewKey = [state.q, state.sort ?? '', state.dir, query.filters ?? ''];
  const viewKeyRef = useRef(viewKey);
  viewKeyRef.current = viewKey;
  // The service counts a search's matches only up to a cap (fast at 1M records) and says so. The
  // exact count costs the service ~133 ms at 1M, so it is asked for only when the list needs it:
  // rows near the lower bound come into view (scrolling, End), the active row nears it (Next), or
  // the screen asks (`askExact`). Then the list grows to it.
  const first = useQuery({
    queryKey: [...keys.table(dataset), ...viewKey, 'total'],
    queryFn: () => tablePage(dataset, { ...query, offset: 0, limit: 1 }).then((p) => ({ n: p.total, capped: p.total_capped })),
    enabled: !plain,
  });
  const viewId = JSON.stringify(viewKey);
  const [exactFor, setExactFor] = useState<string | null>(null);
  const lowerBound = !plain && first.data?.capped === true;
  const exact = useQuery({
    queryKey: [...keys.table(dataset), ...viewKey, 'exact'],
    queryFn: () => tablePage(dataset, { ...query, offset: 0, limit: 0, count: 'exact' }).then((p) => p.total),
    enabled: lowerBound && exactFor === viewId,
  });
  // Only while the first answer is a lower bound and for the view asked last: a disabled query
  // keeps its data and is not refetched, so an exact figure kept from before (deletes since, or an
  // earlier search returned to) is stale.
  const exactN = exactFor === viewId ? exact.data : undefined;
  const capped = lowerBound && exactN === undefined;
  const total = plain ? knownTotal : lowerBound ? (exactN ?? first.data!.n) : (first.data?.n ?? 0);
  // A refused search counts as none: the count must not keep the previous search's figure.
  const counted = plain || first.data !== undefined || first.isError;
  useEffect(() => {
    if (askExact) setExactFor(JSON.stringify(viewKeyRef.current));
  }, [askExact]);
  useEffect(() => {
    if (counted) onTotal(total, capped);
  }, [counted, total, capped, onTotal]);
  const refused = first.error ? errorText(first.error) : null;
  useEffect(() => onRefused(refused), [refused, onRefused]);

  // Past SCROLL_LIMIT the scroller's content is laid out shorter than the list and the
  // virtualizer reads the scroller through the scaling adapter (see scaledScroller).
  const heights = useRef({ full: 0, laidOut: 0, view: 0 });
  const adapter = useRef<ScaledScroller | null>(null);
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => {
      const el = scroller.current;
      if (!el) return null;
      if (adapter.current?.el !== el) adapter.current = scaledScroller(el, () => heights.current);
      return adapter.current as unknown as HTMLElement;
    },
    observeElementRect: observeScaledRect,
    estimateSize: rowHeight,
    // Every mounted row costs style, layout and paint in each frame that moves the list.
    overscan: 8,
    // The sticky header row sits above the rows inside the same scroller.
    scrollMargin: HEAD_HEIGHT,
    // ...and covers the top of the view: a row scrolled to (Home, arrow keys) stops below it.
    scrollPaddingStart: HEAD_HEIGHT,
    // Let React batch scroll renders instead of committing inside each scroll event.
    useFlushSync: false,
  });
  // Flying through the list (dragging the thumb, End): rows show placeholders and no page is
  // fetched or parsed until the scroll slows down — that is what keeps frames short.
  const motion = useRef({ offset: 0, t: 0, fast: false });
  const offset = virtualizer.scrollOffset ?? 0;
  if (offset !== motion.current.offset) {
    // Measured only across scroll moves: other re-renders in between must not reset it.
    const now = performance.now();
    const speed = Math.abs(offset - motion.current.offset) / Math.max(1, now - motion.current.t);
    motion.current = { offset, t: now, fast: speed > FLYING_PX_PER_MS };
  }
  const flying = virtualizer.isScrolling && motion.current.fast;
  const fullHeight = virtualizer.getTotalSize();
  const bodyHeight = Math.min(fullHeight, SCROLL_LIMIT);
  heights.current = { full: HEAD_HEIGHT + fullHeight, laidOut: HEAD_HEIGHT + bodyHeight, view: virtualizer.scrollRect?.height ?? 0 };
  const items = virtualizer.getVirtualItems();
  const nearBound = capped && (active >= total - NEAR_BOUND || (items.length > 0 && items[items.length - 1]!.index >= total - NEAR_BOUND));
  useEffect(() => {
    if (nearBound) setExactFor(viewId);
  }, [nearBound, viewId]);
  // Rows are placed from an anchor that moves every ANCHOR_PX: their offsets stay small (exact
  // in a float transform however long the list) and unchanged between anchor moves.
  const anchor = items.length ? Math.floor(items[0]!.start / ANCHOR_PX) * ANCHOR_PX : 0;
  // Pages are asked for LOOKAHEAD rows beyond the mounted ones, so a page is usually in before
  // any of its rows mounts: rows then come in a few per frame as they scroll in, instead of a
  // whole page's worth of mounted placeholders turning into full rows in one long frame.
  const firstPage = items.length ? Math.floor(Math.max(0, items[0]!.index - LOOKAHEAD) / PAGE) : 0;
  const lastPage = items.length ? Math.floor(Math.min(total - 1, items[items.length - 1]!.index + LOOKAHEAD) / PAGE) : 0;
  const pageNumbers = total ? Array.from({ length: lastPage - firstPage + 1 }, (_, i) => firstPage + i) : [];
  const pages = useQueries({
    queries: pageNumbers.map((p) => ({
      queryKey: [...keys.table(dataset), ...viewKey, p],
      queryFn: async () =>
        plain
          ? (await api.list(dataset, PAGE, p * PAGE)).records
          : (await tablePage(dataset, { ...query, offset: p * PAGE, limit: PAGE })).records,
      placeholderData: (prev: OdrRecord[] | undefined) => prev,
      staleTime: 10_000,
      // Pages scrolled past are dropped soon and never deep-compared: with 100k rows that
      // bookkeeping, not rendering, is what would stall the main thread.
      gcTime: 15_000,
      structuralSharing: false,
      enabled: !flying,
    })),
  });
  /** `exact`: only a page loaded for this view — a placeholder (kept to avoid flashing rows) may hold other rows. */
  const recordAt = (i: number, exact = false): OdrRecord | undefined => {
    const k = pageNumbers.indexOf(Math.floor(i / PAGE));
    return k < 0 || (exact && pages[k]?.isPlaceholderData) ? undefined : pages[k]?.data?.[i % PAGE];
  };

  useEffect(() => {
    if (active < 0 || active >= total) return;
    // A row already wholly in view (the usual arrow step) needs no scroll: asking the virtualizer
    // anyway reads the element's scroll height, a forced layout in the middle of the commit
    // (~3 ms a keypress at 100k rows), before the pane's own changes are laid out again.
    const row = virtualizer.getVirtualItems().find((it) => it.index === active);
    const top = virtualizer.scrollOffset;
    const view = virtualizer.scrollRect?.height;
    if (row && top !== null && view && row.start > top + HEAD_HEIGHT && row.end < top + view) return;
    virtualizer.scrollToIndex(active, { align: 'auto' });
  }, [active, total, virtualizer]);

  const activeUuid = active >= 0 && active < total ? recordAt(active, true)?.record_uuid : undefined;
  useEffect(() => {
    if (activeUuid) onActiveRecord(active, activeUuid);
  }, [active, activeUuid, onActiveRecord]);

  around.current = (i, asked) => aroundCursor(i, (j) => (j >= 0 && j < total ? recordAt(j, true)?.record_uuid : undefined), asked);

  const qc = useQueryClient();
  const selectAll = (on: boolean) => void onSelectAll(on);

  // The header's cells are one stop of the grid's, not Tab stops of their own (headerKeys.ts):
  // `headAt` is the one last visited, where ↑ from the top row goes back to.
  const headRow = useRef<HTMLDivElement>(null);
  const headAt = useRef(0);
  const headStops = () => Array.from(headRow.current?.querySelectorAll<HTMLElement>('[data-head-stop]') ?? []);
  // Key steps build on the last width asked for, as the splitter's do: two presses before the
  // layout re-renders must both count. A new width from the layout resets it.
  const widthAsked = useRef<{ key: string; value: number; width: number } | null>(null);
  const onHeadKey = (e: KeyboardEvent) => {
    const stops = headStops();
    const at = stops.indexOf(e.target as HTMLElement);
    if (at < 0) return; // a resize handle's own keys
    const m = headerKey(e.key, { shift: e.shiftKey, other: e.altKey || e.ctrlKey || e.metaKey }, at, stops.length);
    if (!m) return;
    e.preventDefault();
    if ('to' in m) stops[m.to]!.focus();
    else if ('rows' in m) gridRef.current?.focus();
    else {
      const c = cols.find((col) => col.key === stops[at]!.dataset.col);
      if (!c) return; // Select all: no column to size
      const was = widthAsked.current;
      const from = was && was.key === c.key && was.value === c.width ? was.width : c.width;
      const width = Math.max(MIN_COLUMN_WIDTH, Math.min(MAX_COLUMN_WIDTH, from + 10 * m.resize));
      widthAsked.current = { key: c.key, value: c.width, width };
      onResize(c.key, width);
    }
  };

  const onKey = (e: KeyboardEvent) => {
    if (e.target !== e.currentTarget) return; // the header handles its own keys (onHeadKey)
    // Alt+↑/↓ is the window's previous/next record (DatasetScreen): moving here too made it two rows.
    if (e.altKey) return;
    const move = (to: number) => {
      e.preventDefault();
      const i = Math.max(0, Math.min(total - 1, to));
      const rec = recordAt(i, true);
      seedRecord(qc, rec);
      onPick(i, rec?.record_uuid, { shift: e.shiftKey });
    };
    const mod = e.ctrlKey || e.metaKey;
    if (mod && e.key.toLowerCase() === 'a') {
      e.preventDefault();
      selectAll(true);
      return;
    }
    switch (e.key) {
      case 'ArrowDown':
        return move(active + 1);
      case 'ArrowUp':
        // Above the top row is the header row.
        if (active <= 0 && !e.shiftKey) {
          e.preventDefault();
          const stops = headStops();
          stops[Math.min(headAt.current, stops.length - 1)]?.focus();
          return;
        }
        return move(active - 1);
      case 'PageDown':
        return move(active + 20);
      case 'PageUp':
        return move(active - 20);
      case 'Home':
        return move(0);
      case 'End':
        return move(total - 1);
      case 'Enter':
        e.preventDefault();
        onOpen(active, recordAt(active, true)?.record_uuid);
        return;
      case 'Escape':
        e.preventDefault();
        onEscape();
        return;
      case 'Delete':
        e.preventDefault();
        onDelete();
        return;
      case ' ': {
        e.preventDefault();
        onPick(active, recordAt(active, true)?.record_uuid, { toggle: true });
      }
    }
  };

  const sortBy = (f: string) => {
    if (state.sort !== f) onState({ ...state, sort: f, dir: 'asc' });
    else if (state.dir === 'asc') onState({ ...state, dir: 'desc' });
    else onState({ ...state, sort: undefined, dir: 'asc' });
  };
  const sortOf = (f: string) => (state.sort === f ? (state.dir === 'asc' ? 'ascending' : 'descending') : undefined);
  const arrow = (f: string) => (state.sort === f ? (state.dir === 'asc' ? ' ▲' : ' ▼') : '');
  // The last column takes what is left over, so the rows always reach the grid's right edge.
  const widths = cols.map((c, i) => (i === cols.length - 1 ? `minmax(${c.width}px, 1fr)` : `${c.width}px`));
  const template = [`${FIXED.check}px`, `${FIXED.name}px`, ...widths].join(' ');
  const minWidth = FIXED.check + FIXED.name + cols.reduce((n, c) => n + c.width, 0);
  // Select all shows the click at once (its uuids come later), and no longer once a click,
  // Escape or a view change has cancelled its read.
  const all = allPending || allState(selected.size, total) === 'all';
  const gridId = `grid-${dataset}`;

  return (
    <div className="table" style={{ ['--cols' as string]: template }}>
      {/* The scroller is the grid itself: a scroller with nothing tabbable inside is a Tab stop of
          its own in Chromium, which inside the grid would be a second stop (its header's cells are
          no Tab stops, headerKeys.ts) and take a row click's focus from the grid. */}
      <div
        ref={gridAndScroller}
        className="rows"
        role="grid"
        aria-label={`${tpl.name} records`}
        aria-rowcount={total + 1}
        aria-colcount={cols.length + 2}
        aria-multiselectable="true"
        aria-activedescendant={active >= 0 && active < total ? rowId(gridId, active) : undefined}
        tabIndex={0}
        onKeyDown={onKey}
        data-testid="table-scroller"
      >
        <div role="rowgroup" className="head-group" style={{ minWidth }} onFocus={(e) => revealBesidePins(scroller.current, e.target)}>
          <div
            ref={headRow}
            role="row"
            aria-rowindex={1}
            className="row head"
            onKeyDown={onHeadKey}
            onFocus={(e) => {
              const i = headStops().indexOf(e.target);
              if (i >= 0) headAt.current = i;
            }}
          >
            <div role="columnheader" className="cell check pin">
              <input
                type="checkbox"
                tabIndex={-1}
                data-head-stop
                aria-label="Select all records"
                checked={all}
                disabled={total === 0}
                ref={(el) => {
                  if (el) el.indeterminate = selected.size > 0 && !all;
                }}
                onChange={(e) => selectAll(e.target.checked)}
              />
            </div>
            <div role="columnheader" className="cell name pin">
              Name
            </div>
            {cols.map((c) => (
              <div role="columnheader" key={c.key} className={`cell head-cell${c.key === ID_KEY ? ' id' : ''}`} aria-sort={sortOf(c.key)}>
                {c.sortable ? (
                  <button
                    type="button"
                    className="link"
                    tabIndex={-1}
                    data-head-stop
                    data-col={c.key}
                    onClick={() => sortBy(c.key)}
                    aria-label={`Sort by ${c.label}`}
                    aria-description={RESIZE_HINT}
                    title={c.label}
                  >
                    {c.label}
                    {arrow(c.key)}
                  </button>
                ) : (
                  <span tabIndex={-1} data-head-stop data-col={c.key} aria-description={RESIZE_HINT} title={c.label}>
                    {c.label}
                  </span>
                )}
                <Splitter
                  className="col-resize"
                  grows="right"
                  step={10}
                  label={`Resize column ${c.label}`}
                  tabIndex={-1}
                  value={c.width}
                  min={MIN_COLUMN_WIDTH}
                  max={MAX_COLUMN_WIDTH}
                  onChange={(w) => onResize(c.key, w)}
                />
              </div>
            ))}
          </div>
        </div>
        <div role="rowgroup" className="body-group" style={{ height: bodyHeight, minWidth }}>
          {/* One moving box: rows keep their transforms while the list scrolls, so a frame
              restyles only the rows coming in (scaled lists move this box every frame). */}
          <div className="rows-at" style={{ transform: `translateY(${anchor + laidOutShift(offset, adapter.current) - HEAD_HEIGHT}px)` }}>
            {items.map((v) => {
              const rec = recordAt(v.index);
              return (
                <Row
                  key={v.key}
                  grid={gridId}
                  rec={rec}
                  tpl={tpl}
                  cols={cols}
                  index={v.index}
                  top={v.start - anchor}
                  active={v.index === active}
                  selected={!!rec && selected.has(rec.record_uuid)}
                  pending={!!rec && pending.has(rec.record_uuid)}
                  fresh={!!rec && rec.record_uuid === fresh}
                  onPick={onPick}
                  onOpen={onOpen}
                />
              );
            })}
          </div>
        </div>
        {/* A search the service refuses (one that only excludes words) says why, not "no match". A
            plain paragraph like the one below: a grid may own rows only, so the alert a screen reader
            hears is the screen's (onRefused), outside the grid; this one is for the eye. */}
        {first.error ? (
          <p className="empty" data-testid="search-error" aria-hidden="true">
            <WholeWords text={errorText(first.error)} />
          </p>
        ) : null}
        {counted && total === 0 && !first.error && (
          <p className="empty">
            {state.filters.length ? 'No record matches these filters.' : state.q ? `No record matches “${state.q}”.` : 'No records yet.'}
          </p>
        )}
      </div>
    </div>
  );
}
