import { useCallback, useEffect, useState } from 'react';
import type { Route } from '../../lib/route';
import { toast } from '../../ui/toasts';
import { queryOf, type TableState } from '../RecordTable';
import { useSavedSearches } from '../SavedSearches';
import type { SearchView, ViewFilter } from '../../../../shared/schemas/view';

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/**
 * What the list shows (docs/renderer-state.md, "The list's view"): the search as typed and as
 * sent, the filters and the sort, and whether the filter bar is open.
 */
export function useListView(dataset: string, route: Route, go: (r: Partial<Route>) => void) {
  const [search, setSearch] = useState('');
  const q = useDebounced(search.trim(), 200);
  const [table, setTable] = useState<TableState>({ q: '', dir: 'asc', filters: [] });
  const [filtering, setFiltering] = useState(false);
  /** Bumped when a saved search replaces the filters: the filter bar starts over from them. */
  const [filterGen, setFilterGen] = useState(0);
  const saved = useSavedSearches(dataset);

  useEffect(() => setTable((t) => ({ ...t, q })), [q]);
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

  const searchView: SearchView = {
    q: table.q || undefined,
    filters: table.filters.length ? table.filters : undefined,
    sort: table.sort,
    dir: table.sort ? table.dir : undefined,
  };
  return {
    search,
    setSearch,
    table,
    setTable,
    onFilters,
    filtering,
    setFiltering,
    filterGen,
    /** The view as the list routes read it. */
    query: queryOf(table),
    searchView,
    /** Whether the list shows fewer than all the dataset's records. */
    narrowed: !!table.q || table.filters.length > 0,
  };
}
