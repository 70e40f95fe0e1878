import { useCallback, useEffect, useState } from 'react';

/** #/d/<dataset>[/r/<record>][?view=template][&search=<id>] — the app's location, kept in the URL hash. */
export interface Route {
  dataset?: string;
  record?: string;
  view: 'records' | 'template';
  /** A saved search to open (its id); the dataset screen applies it and drops it from the hash. */
  search?: string;
}

export function parseHash(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean);
  const params = new URLSearchParams(query);
  const route: Route = { view: params.get('view') === 'template' ? 'template' : 'records' };
  const search = params.get('search');
  if (search) route.search = search;
  for (let i = 0; i < parts.length; i += 2) {
    if (parts[i] === 'd') route.dataset = parts[i + 1];
    if (parts[i] === 'r') route.record = parts[i + 1];
  }
  return route;
}

export function hashOf(r: Route): string {
  let h = '#/';
  if (r.dataset) h += `d/${r.dataset}`;
  if (r.dataset && r.record) h += `/r/${r.record}`;
  const params = new URLSearchParams();
  if (r.view === 'template') params.set('view', 'template');
  if (r.dataset && r.search) params.set('search', r.search);
  const q = params.toString();
  return q ? `${h}?${q}` : h;
}

export function useRoute(): [Route, (r: Partial<Route>) => void] {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  const go = useCallback((r: Partial<Route>) => {
    const next = { ...parseHash(window.location.hash), ...r };
    window.location.hash = hashOf(next);
  }, []);
  return [route, go];
}
