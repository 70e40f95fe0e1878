import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, errorText, type DatasetSummary, type Session } from '../lib/api';
import { keys, useTemplate } from '../lib/queries';
import type { Route } from '../lib/route';
import { RecordEditor } from '../editor/RecordEditor';
import { Time } from '../ui/Time';
import { toast } from '../ui/toasts';
import { RecordTable, type TableState } from './RecordTable';
import { TemplateView } from './TemplateView';

/** How long a delete waits for "Undo" before it is sent. */
export const UNDO_MS = 6000;

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

export function DatasetScreen({ summary, route, go, session }: {
  summary: DatasetSummary; route: Route; go: (r: Partial<Route>) => void; session: Session;
}) {
  const qc = useQueryClient();
  const { data: tpl, error } = useTemplate(summary.uuid);
  const [search, setSearch] = useState('');
  const q = useDebounced(search.trim(), 200);
  const [table, setTable] = useState<TableState>({ q: '', dir: 'asc' });
  const [active, setActive] = useState(0);
  const [checked, setChecked] = useState<Set<string>>(new Set());
  const [pending, setPending] = useState<Set<string>>(new Set());
  const grid = useRef<HTMLDivElement>(null);

  useEffect(() => setTable((t) => ({ ...t, q })), [q]);
  useEffect(() => { setActive(0); setChecked(new Set()); }, [summary.uuid, table.q, table.sort, table.dir]);

  const refresh = useCallback(() => {
    void qc.invalidateQueries({ queryKey: keys.table(summary.uuid) });
    void qc.invalidateQueries({ queryKey: keys.datasets });
  }, [qc, summary.uuid]);

  const create = async () => {
    try {
      const rec = await api.createRecord(summary.uuid);
      refresh();
      go({ record: rec.record_uuid });
    } catch (e) {
      toast({ kind: 'error', text: `No record created: ${errorText(e)}` });
    }
  };

  // Deletes wait out an undo window; closing the app inside it deletes nothing.
  const requestDelete = (uuids: string[]) => {
    if (!uuids.length) return;
    const what = uuids.length === 1 ? 'this record' : `${uuids.length} records`;
    if (!window.confirm(`Delete ${what}? You can undo for ${UNDO_MS / 1000} seconds.`)) return;
    setPending((p) => new Set([...p, ...uuids]));
    setChecked(new Set());
    if (route.record && uuids.includes(route.record)) go({ record: undefined });
    const unpend = () => setPending((p) => new Set([...p].filter((u) => !uuids.includes(u))));
    const timer = setTimeout(async () => {
      try {
        for (let i = 0; i < uuids.length; i += 100) await api.deleteRecords(uuids.slice(i, i + 100));
        toast({ kind: 'info', text: `Deleted ${what}` }, 3000);
      } catch (e) {
        toast({ kind: 'error', text: `Not deleted: ${errorText(e)}` });
      }
      unpend();
      refresh();
    }, UNDO_MS);
    toast({
      kind: 'info', text: `Deleting ${what}…`,
      action: { label: 'Undo', run: () => { clearTimeout(timer); unpend(); toast({ kind: 'info', text: 'Delete undone' }, 2500); } },
    }, UNDO_MS);
  };

  if (error) return <main className="main"><p role="alert">The template could not be read: {errorText(error)}</p></main>;
  if (!tpl) return <main className="main" aria-busy="true"><p className="muted">Loading {summary.name}…</p></main>;

  return (
    <main className="main">
      <header className="dataset-head">
        <div>
          <h1>{summary.name}</h1>
          <p className="muted">{summary.records.toLocaleString()} records · last change <Time ts={summary.updated} /></p>
        </div>
        <nav className="tabs" aria-label="Dataset views">
          <button type="button" aria-pressed={route.view === 'records'} onClick={() => go({ view: 'records' })}>Records</button>
          <button type="button" aria-pressed={route.view === 'template'} onClick={() => go({ view: 'template' })}>Template</button>
        </nav>
      </header>
      {route.view === 'template' ? (
        <TemplateView tpl={tpl} dataset={summary.uuid} />
      ) : (
        <div className={`workspace${route.record ? ' with-editor' : ''}`}>
          <section className="records" aria-label="Records" ref={grid}>
            <div className="toolbar">
              <input type="search" placeholder="Search records…" aria-label="Search records" value={search} onChange={(e) => setSearch(e.target.value)}
                onKeyDown={(e) => { if (e.key === 'Escape') setSearch(''); if (e.key === 'ArrowDown') grid.current?.querySelector<HTMLElement>('[role=grid]')?.focus(); }} />
              <button type="button" onClick={() => void create()}>New record</button>
              <button type="button" className="danger" disabled={checked.size === 0} onClick={() => requestDelete([...checked])}>
                Delete selected{checked.size ? ` (${checked.size})` : ''}
              </button>
            </div>
            <RecordTable dataset={summary.uuid} tpl={tpl} total={summary.records} state={table} onState={setTable}
              active={active} onActive={setActive} onOpen={(uuid) => go({ record: uuid })}
              checked={checked} onCheck={(u, on) => setChecked((s) => { const n = new Set(s); if (on) n.add(u); else n.delete(u); return n; })}
              pending={pending} />
          </section>
          {route.record && (
            <RecordEditor key={route.record} uuid={route.record} tpl={tpl} session={session}
              onClose={() => { go({ record: undefined }); grid.current?.querySelector<HTMLElement>('[role=grid]')?.focus(); }}
              onDelete={(u) => requestDelete([u])} />
          )}
        </div>
      )}
    </main>
  );
}
