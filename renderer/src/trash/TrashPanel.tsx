import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef } from 'react';
import type { TrashEntry } from '../../../shared/schemas/local';
import { errorText, restoreTrash, trash } from '../lib/api';
import { RecordTrashSection } from './RecordTrashSection';
import { countOf } from '../lib/numbers';
import { keys } from '../lib/queries';
import { confirmDialog } from '../ui/Dialog';
import { SidePanel } from '../ui/SidePanel';
import { Time } from '../ui/Time';
import { toast } from '../ui/toasts';

/**
 * Deleted datasets and top-level records, kept 30 days: restore one. Datasets: the caller's
 * deletions (every one for a super-user); records: those the caller may restore.
 */
export function TrashPanel({ onClose }: { onClose: () => void }) {
  const entries = useQuery({ queryKey: keys.trash, queryFn: trash, staleTime: 0 });
  const qc = useQueryClient();
  // A restored entry's button goes with it: the focus stays in the panel, on its Datasets heading.
  const heading = useRef<HTMLHeadingElement>(null);
  const restore = async (e: TrashEntry) => {
    const ok = await confirmDialog({
      title: 'Restore dataset',
      body: `“${e.name}” comes back with its ${countOf(e.records, 'record')}, files, child datasets and roles, under the same uuids.`,
      confirm: 'Restore',
    });
    if (!ok) return;
    try {
      await restoreTrash(e.id);
      toast({ kind: 'info', text: `Restored ${e.name}` });
      // Before the list loses the entry and its focused button (see RecordTrashSection).
      heading.current?.focus();
      await Promise.all([qc.invalidateQueries({ queryKey: keys.trash }), qc.invalidateQueries({ queryKey: keys.datasets })]);
    } catch (err) {
      toast({ kind: 'error', text: `Could not restore ${e.name}: ${errorText(err)}` });
    }
  };
  return (
    <SidePanel title="Trash" className="trash-panel" onClose={onClose}>
      {entries.isError && <p role="alert">Could not read the trash: {errorText(entries.error)}</p>}
      <h3 ref={heading} tabIndex={-1}>
        Datasets
      </h3>
      {entries.data?.length === 0 && <p className="muted">No dataset deleted in the last 30 days.</p>}
      <ul className="trash-list" aria-label="Deleted datasets">
        {(entries.data ?? []).map((e) => (
          <li key={e.id}>
            <div>
              <strong>{e.name}</strong>
              <p className="muted">
                {countOf(e.records, 'record')} · deleted <Time ts={e.deleted_at} /> by {e.deleted_by} · kept until{' '}
                <Time ts={e.expires_at} />
              </p>
            </div>
            <button type="button" onClick={() => void restore(e)}>
              Restore<span className="sr-only"> {e.name}</span>
            </button>
          </li>
        ))}
      </ul>
      <RecordTrashSection />
    </SidePanel>
  );
}
