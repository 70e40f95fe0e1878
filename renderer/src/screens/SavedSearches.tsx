import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import type { SavedSearch, SearchView } from '../../../shared/schemas/view';
import { deleteSavedSearch, errorText, saveSearch, savedSearches } from '../lib/api';
import { hashOf } from '../lib/route';
import { confirmDialog, DialogActions, Modal } from '../ui/Dialog';
import { toast } from '../ui/toasts';

export const savedKey = (dataset: string) => ['saved-searches', dataset] as const;

export const useSavedSearches = (dataset: string) =>
  useQuery({ queryKey: savedKey(dataset), queryFn: () => savedSearches(dataset), staleTime: 60_000 });

/**
 * The open dataset's saved searches in the sidebar, under the dataset: a link opens one (the
 * dataset screen applies its search, filters and sort), ✕ deletes it after asking.
 */
export function SavedSearches({ dataset }: { dataset: string }) {
  const qc = useQueryClient();
  const { data: searches = [] } = useSavedSearches(dataset);
  const list = useRef<HTMLUListElement>(null);
  if (searches.length === 0) return null;
  /** A deleted search's ✕ goes with it: the focus goes to the next search (else the one before), or to its dataset's link. */
  const focusInstead = (s: SavedSearch) => {
    const i = searches.findIndex((x) => x.id === s.id);
    const next = searches[i + 1] ?? searches[i - 1];
    const el = next ? list.current?.querySelector<HTMLElement>(`[data-saved-search="${next.id}"]`) : null;
    (el ?? list.current?.parentElement?.querySelector<HTMLElement>(':scope > a'))?.focus();
  };
  const remove = async (s: SavedSearch) => {
    const ok = await confirmDialog({
      title: `Delete the saved search “${s.name}”?`,
      body: 'Only the saved search goes; no record changes.',
      confirm: 'Delete',
      danger: true,
    });
    if (!ok) return;
    try {
      await deleteSavedSearch(s.id);
      focusInstead(s);
      void qc.invalidateQueries({ queryKey: savedKey(dataset) });
    } catch (e) {
      toast({ kind: 'error', text: `Not deleted: ${errorText(e)}` });
    }
  };
  return (
    <ul ref={list} className="saved-searches" aria-label="Saved searches">
      {searches.map((s) => (
        <li key={s.id}>
          <a
            href={hashOf({ dataset, view: 'records', search: String(s.id) })}
            data-saved-search={s.id}
            title={`Open the saved search “${s.name}”`}
          >
            <span aria-hidden="true">⌕ </span>
            {s.name}
          </a>
          <button type="button" className="link" aria-label={`Delete saved search ${s.name}`} onClick={() => void remove(s)}>
            ✕
          </button>
        </li>
      ))}
    </ul>
  );
}

/** Names the current view and saves it (in the service: it outlives restarts). */
export function SaveSearchDialog({ dataset, view, onClose }: { dataset: string; view: SearchView; onClose: () => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState(view.q ?? '');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const save = async () => {
    if (!name.trim()) return setError('Give the search a name');
    setBusy(true);
    try {
      await saveSearch(dataset, { name: name.trim(), view });
      void qc.invalidateQueries({ queryKey: savedKey(dataset) });
      toast({ kind: 'info', text: `Saved “${name.trim()}”: it is in the sidebar under the dataset` }, 3000);
      onClose();
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };
  return (
    <Modal className="confirm" labelledBy="save-search-title" onClose={onClose}>
      <h2 id="save-search-title">Save this search</h2>
      <form
        className="batch-form"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label>
          <span>Name</span>
          <input
            type="text"
            value={name}
            maxLength={120}
            // The dialog's one field: it takes the focus as the dialog opens.
            autoFocus
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'save-search-error' : undefined}
            onChange={(e) => {
              setName(e.target.value);
              setError('');
            }}
          />
        </label>
        {error && (
          <span id="save-search-error" className="field-error" role="alert">
            {error}
          </span>
        )}
        <DialogActions secondary={{ label: 'Cancel', onClick: onClose }} primary={{ label: 'Save', disabled: busy }} />
      </form>
    </Modal>
  );
}
