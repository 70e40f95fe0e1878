import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { errorText, remoteDatasets } from '../lib/api';

/** The remote's datasets with checkboxes; already synced ones start checked. */
export function DatasetPicker({
  remoteId,
  synced,
  onSync,
  onCancel,
}: {
  remoteId: number;
  synced: string[];
  onSync: (datasets: string[]) => void;
  onCancel?: () => void;
}) {
  const list = useQuery({ queryKey: ['remote-datasets', remoteId], queryFn: () => remoteDatasets(remoteId), retry: false });
  const [chosen, setChosen] = useState<Set<string>>(() => new Set(synced));
  if (list.isPending)
    return (
      <p className="muted" aria-busy="true">
        Asking the server for its datasets…
      </p>
    );
  if (list.isError)
    return (
      <p className="field-error" role="alert">
        Could not list the server's datasets: {errorText(list.error)}
      </p>
    );
  const toggle = (u: string) =>
    setChosen((s) => {
      const n = new Set(s);
      if (n.has(u)) n.delete(u);
      else n.add(u);
      return n;
    });
  return (
    <form
      className="dataset-picker"
      aria-label="Datasets to sync"
      onSubmit={(e) => {
        e.preventDefault();
        onSync([...chosen]);
      }}
    >
      <p className="muted small">Tick the server's datasets to pull here; changes made on either side are then kept in step.</p>
      {list.data.length === 0 && <p className="muted">The server lists no datasets for this account.</p>}
      <ul>
        {list.data.map((d) => (
          <li key={d.unique_id}>
            <label>
              <input type="checkbox" checked={chosen.has(d.unique_id)} onChange={() => toggle(d.unique_id)} /> {d.database_name}
            </label>
          </li>
        ))}
      </ul>
      <div className="conflict-actions">
        <button type="submit" className="primary" disabled={!chosen.size}>
          Sync {chosen.size || ''} dataset{chosen.size === 1 ? '' : 's'}
        </button>
        {onCancel && (
          <button type="button" className="link" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
