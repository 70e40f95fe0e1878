import { useQueries } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import { fieldType } from '../../../shared/fieldTypes';
import type { OdrRecord } from '../../../shared/schemas/record';
import type { Template, TemplateField } from '../../../shared/schemas/template';
import { api, tablePage } from '../lib/api';
import { keys } from '../lib/queries';
import { groupImages } from '../editor/FilesField';
import { PluginCell } from '../plugins';

export const PAGE = 100;
const ROW_HEIGHT = 36;
const HEAD_HEIGHT = 34;
/** ~300 rows a second: faster than anyone reads. */
const FLYING_PX_PER_MS = 10;
// Stable across renders: the virtualizer re-measures all rows when its estimator changes.
const rowHeight = () => ROW_HEIGHT;
const MAX_COLUMNS = 9;

export interface TableState {
  q: string;
  sort?: string;
  dir: 'asc' | 'desc';
}

/** The columns: the dataset's own fields in template order, files as counts, images as thumbnails. */
export function columnsOf(tpl: Template): TemplateField[] {
  return tpl.fields.filter((f) => fieldType(f.fieldtype).editor !== 'none').slice(0, MAX_COLUMNS);
}

function cellText(rec: OdrRecord, f: TemplateField): string {
  const e = rec.fields.find((x) => x.field_uuid === f.field_uuid);
  if (!e) return '';
  const t = fieldType(f.fieldtype);
  switch (t.storage) {
    case 'boolean': return e.selected === 1 ? '✓' : '';
    case 'options': return (e.values ?? []).map((v) => v.name).join(', ');
    case 'tags': return (e.tags ?? []).map((v) => v.name).join(', ');
    case 'files': {
      const n = (e.files ?? []).filter((x) => x.parent_image_id === undefined).length;
      return n ? `${n} file${n > 1 ? 's' : ''}` : '';
    }
    default: return e.value === null || e.value === undefined ? '' : String(e.value);
  }
}

const Row = memo(function Row({ rec, cols, index, active, checked, pending, onOpen, onCheck, onFocusRow }: {
  rec: OdrRecord | undefined; cols: TemplateField[]; index: number; active: boolean; checked: boolean; pending: boolean;
  onOpen: (uuid: string) => void; onCheck: (uuid: string, on: boolean) => void; onFocusRow: (i: number) => void;
}) {
  if (!rec) {
    return (
      <div role="row" aria-rowindex={index + 2} className="row loading">
        <div role="gridcell" className="cell muted">…</div>
      </div>
    );
  }
  const name = String(rec.record_name || `#${rec.internal_id}`);
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      aria-selected={active}
      aria-label={name}
      data-record={rec.record_uuid}
      className={`row${active ? ' active' : ''}${pending ? ' pending-delete' : ''}`}
      onClick={() => onFocusRow(index)}
      onDoubleClick={() => onOpen(rec.record_uuid)}
    >
      <div role="gridcell" className="cell check">
        <input type="checkbox" checked={checked} aria-label={`Select ${name}`} tabIndex={-1} onChange={(e) => onCheck(rec.record_uuid, e.target.checked)} />
      </div>
      <div role="gridcell" className="cell id">
        <button type="button" className="link" tabIndex={-1} onClick={() => onOpen(rec.record_uuid)}>{rec.internal_id}</button>
      </div>
      {cols.map((f) => {
        if (f.fieldtype === 'Image') {
          const e = rec.fields.find((x) => x.field_uuid === f.field_uuid);
          const first = groupImages(e?.files ?? [])[0];
          return (
            <div role="gridcell" key={f.field_uuid} className="cell img">
              {first && first.original.content_local !== false && <img src={api.fileUrl((first.thumb ?? first.original).file_uuid)} alt={first.original.original_name} height={28} loading="lazy" />}
            </div>
          );
        }
        return <div role="gridcell" key={f.field_uuid} className="cell" title={cellText(rec, f)}><PluginCell field={f} text={cellText(rec, f)} /></div>;
      })}
      {pending && <div role="gridcell" className="cell muted">deleting…</div>}
    </div>
  );
});

/**
 * Every record of a dataset in one virtualized grid: pages of 100 are fetched as they scroll
 * into view — through the ODR list endpoint in storage order, through the local table route
 * when sorted or searched.
 */
export function RecordTable({ dataset, tpl, total: knownTotal, state, onState, active, onActive, onOpen, checked, onCheck, pending }: {
  dataset: string; tpl: Template; total: number; state: TableState; onState: (s: TableState) => void;
  active: number; onActive: (i: number) => void; onOpen: (uuid: string) => void;
  checked: Set<string>; onCheck: (uuid: string, on: boolean) => void; pending: Set<string>;
}) {
  const cols = useMemo(() => columnsOf(tpl), [tpl]);
  const scroller = useRef<HTMLDivElement>(null);
  const plain = !state.q && !state.sort;
  const first = useQueries({
    queries: [{
      queryKey: [...keys.table(dataset), state.q, state.sort ?? '', state.dir, 'total'],
      queryFn: () => tablePage(dataset, { q: state.q, sort: state.sort, dir: state.dir, offset: 0, limit: 1 }).then((p) => p.total),
      enabled: !plain,
    }],
  })[0]!;
  const total = plain ? knownTotal : first.data ?? 0;

  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scroller.current,
    estimateSize: rowHeight,
    overscan: 20,
    // The sticky header row sits above the rows inside the same scroller.
    scrollMargin: HEAD_HEIGHT,
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
  const items = virtualizer.getVirtualItems();
  const firstPage = items.length ? Math.floor(items[0]!.index / PAGE) : 0;
  const lastPage = items.length ? Math.floor(items[items.length - 1]!.index / PAGE) : 0;
  const pageNumbers = total ? Array.from({ length: lastPage - firstPage + 1 }, (_, i) => firstPage + i) : [];
  const pages = useQueries({
    queries: pageNumbers.map((p) => ({
      queryKey: [...keys.table(dataset), state.q, state.sort ?? '', state.dir, p],
      queryFn: async () => (plain
        ? (await api.list(dataset, PAGE, p * PAGE)).records
        : (await tablePage(dataset, { q: state.q, sort: state.sort, dir: state.dir, offset: p * PAGE, limit: PAGE })).records),
      placeholderData: (prev: OdrRecord[] | undefined) => prev,
      staleTime: 10_000,
      // Pages scrolled past are dropped soon and never deep-compared: with 100k rows that
      // bookkeeping, not rendering, is what would stall the main thread.
      gcTime: 15_000,
      structuralSharing: false,
      enabled: !flying,
    })),
  });
  const recordAt = (i: number): OdrRecord | undefined => {
    const k = pageNumbers.indexOf(Math.floor(i / PAGE));
    return k < 0 ? undefined : pages[k]?.data?.[i % PAGE];
  };

  useEffect(() => {
    if (active >= 0 && active < total) virtualizer.scrollToIndex(active, { align: 'auto' });
  }, [active, total, virtualizer]);

  const onKey = (e: KeyboardEvent) => {
    const move = (to: number) => {
      e.preventDefault();
      onActive(Math.max(0, Math.min(total - 1, to)));
    };
    switch (e.key) {
      case 'ArrowDown': return move(active + 1);
      case 'ArrowUp': return move(active - 1);
      case 'PageDown': return move(active + 20);
      case 'PageUp': return move(active - 20);
      case 'Home': return move(0);
      case 'End': return move(total - 1);
      case 'Enter': {
        const r = recordAt(active);
        if (r) {
          e.preventDefault();
          onOpen(r.record_uuid);
        }
        return;
      }
      case ' ': {
        const r = recordAt(active);
        if (r) {
          e.preventDefault();
          onCheck(r.record_uuid, !checked.has(r.record_uuid));
        }
      }
    }
  };

  const sortBy = (f: string) => {
    if (state.sort !== f) onState({ ...state, sort: f, dir: 'asc' });
    else if (state.dir === 'asc') onState({ ...state, dir: 'desc' });
    else onState({ ...state, sort: undefined, dir: 'asc' });
  };
  const template = `36px 96px repeat(${cols.length}, minmax(140px, 1fr))`;
  const minWidth = 132 + cols.length * 140;

  return (
    <div className="table" role="grid" aria-label={`${tpl.name} records`} aria-rowcount={total + 1} aria-colcount={cols.length + 2}
      tabIndex={0} onKeyDown={onKey} style={{ ['--cols' as string]: template }} data-testid="record-grid">
      <div ref={scroller} className="rows" data-testid="table-scroller">
        <div role="row" aria-rowindex={1} className="row head" style={{ minWidth }}>
          <div role="columnheader" className="cell check"><span className="sr-only">Selected</span></div>
          <div role="columnheader" className="cell id" aria-sort={state.sort === '_id' ? (state.dir === 'asc' ? 'ascending' : 'descending') : undefined}>
            <button type="button" className="link" tabIndex={-1} onClick={() => sortBy('_id')}>ID</button>
          </div>
          {cols.map((f) => {
            const sortable = fieldType(f.fieldtype).sortable;
            return (
              <div role="columnheader" key={f.field_uuid} className="cell" aria-sort={state.sort === f.field_uuid ? (state.dir === 'asc' ? 'ascending' : 'descending') : undefined}>
                {sortable ? (
                  <button type="button" className="link" tabIndex={-1} onClick={() => sortBy(f.field_uuid)} aria-label={`Sort by ${f.name}`}>
                    {f.name}{state.sort === f.field_uuid ? (state.dir === 'asc' ? ' ▲' : ' ▼') : ''}
                  </button>
                ) : f.name}
              </div>
            );
          })}
        </div>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative', minWidth }}>
          {items.map((v) => {
            const rec = recordAt(v.index);
            return (
              <div key={v.key} style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${v.start - HEAD_HEIGHT}px)` }}>
                <Row rec={rec} cols={cols} index={v.index} active={v.index === active} checked={!!rec && checked.has(rec.record_uuid)}
                  pending={!!rec && pending.has(rec.record_uuid)} onOpen={onOpen} onCheck={onCheck} onFocusRow={onActive} />
              </div>
            );
          })}
        </div>
        {total === 0 && <p className="empty">{state.q ? `No record matches “${state.q}”.` : 'No records yet.'}</p>}
      </div>
    </div>
  );
}
