import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import { parseTable, sortedIndexes } from '../../../shared/plugins/csvTable';
import type { FileEntry } from '../../../shared/schemas/record';
import { FileProblem } from './FileProblem';
import { useFileText } from './fileText';

const ROW = 28;
const VIEW_ROWS = 14;

/** One CSV file as a sortable, virtualized table; the raw text one click away. */
export function CsvTable({ file }: { file: FileEntry }) {
  const q = useFileText(file);
  const [sort, setSort] = useState<{ col: number; dir: 'asc' | 'desc' } | null>(null);
  const [raw, setRaw] = useState(false);
  const scroller = useRef<HTMLDivElement>(null);
  const parsed = useMemo(() => {
    if (q.data === undefined) return null;
    try {
      return { table: parseTable(q.data), error: null };
    } catch (e) {
      return { table: null, error: e instanceof Error ? e.message : String(e) };
    }
  }, [q.data]);
  const table = parsed?.table ?? null;
  const order = useMemo(() => (table && sort ? sortedIndexes(table, sort.col, sort.dir) : null), [table, sort]);
  const count = table?.rows.length ?? 0;
  const virtualizer = useVirtualizer({ count, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 10 });

  if (q.isPending)
    return (
      <p className="muted" aria-busy="true">
        Loading {file.original_name}…
      </p>
    );
  if (q.error) return <FileProblem error={q.error} names={[file.original_name]} retry={() => void q.refetch()} />;
  if (!table)
    return (
      <p className="plugin-problem" role="status">
        {file.original_name}: {parsed?.error}
      </p>
    );

  const cycle = (col: number) => setSort((s) => (s?.col !== col ? { col, dir: 'asc' } : s.dir === 'asc' ? { col, dir: 'desc' } : null));
  const columns = `repeat(${table.header.length}, minmax(90px, 1fr))`;
  return (
    <div className="plugin-csv" data-testid="csv-table">
      <div className="csv-tools">
        <span className="muted small">
          {file.original_name} · {count.toLocaleString()} row{count === 1 ? '' : 's'}
        </span>
        <button type="button" className="link" aria-pressed={raw} onClick={() => setRaw(!raw)}>
          {raw ? 'Show table' : 'Show raw file'}
        </button>
      </div>
      {raw ? (
        <pre className="csv-raw" aria-label={`${file.original_name} raw text`}>
          {q.data}
        </pre>
      ) : (
        <div
          className="csv-grid"
          role="table"
          aria-label={file.original_name}
          aria-rowcount={count + 1}
          style={{ ['--csv-cols' as string]: columns }}
        >
          <div role="row" className="csv-row csv-head">
            {table.header.map((h, i) => (
              <div
                role="columnheader"
                key={i}
                className="csv-cell"
                aria-sort={sort?.col === i ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
              >
                <button type="button" className="link" onClick={() => cycle(i)} aria-label={`Sort by ${h}`}>
                  {h}
                  {sort?.col === i ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}
                </button>
              </div>
            ))}
          </div>
          <div ref={scroller} className="csv-body" style={{ maxHeight: ROW * VIEW_ROWS }}>
            <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
              {virtualizer.getVirtualItems().map((v) => {
                const row = table.rows[order ? order[v.index]! : v.index]!;
                return (
                  <div
                    role="row"
                    key={v.key}
                    aria-rowindex={v.index + 2}
                    className="csv-row"
                    style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW, transform: `translateY(${v.start}px)` }}
                  >
                    {table.header.map((_, c) => (
                      <div role="cell" key={c} className="csv-cell" title={row[c]}>
                        {row[c] ?? ''}
                      </div>
                    ))}
                  </div>
                );
              })}
            </div>
          </div>
        </div>
      )}
    </div>
  );
}
