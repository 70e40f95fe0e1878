import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorText, stopSyncing } from '../lib/api';
import { keys } from '../lib/queries';
import { confirmDialog } from '../ui/Dialog';
import { toast } from '../ui/toasts';

/**
 * "Stop syncing" one dataset, after an in-app confirmation: the service drops its sync state
 * (changes not sent yet and open conflicts included) and keeps its data here as local data.
 */
export function StopSyncingButton({ dataset, name, disabled }: { dataset: string; name: string; disabled: boolean }) {
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const stop = async () => {
    const ok = await confirmDialog({
      title: `Stop syncing ${name}?`,
      body: 'Its records and files stay on this computer as local data. Changes not sent yet and open conflicts are dropped; the server keeps its copy.',
      confirm: 'Stop syncing',
      danger: true,
    });
    if (!ok) return;
    setBusy(true);
    try {
      const dropped = await stopSyncing(dataset);
      toast(
        { kind: 'info', text: `${name} is no longer synced${dropped.outbox ? ` (${dropped.outbox} unsent changes dropped)` : ''}` },
        5000,
      );
    } catch (e) {
      toast({ kind: 'error', text: `Could not stop syncing ${name}: ${errorText(e)}` });
    } finally {
      setBusy(false);
      void qc.invalidateQueries({ queryKey: keys.sync });
      void qc.invalidateQueries({ queryKey: keys.synced });
    }
  };
  // Wrapped: the list item stacks its lines and would stretch a bare button across the panel.
  return (
    <span>
      <button
        type="button"
        className="link"
        disabled={disabled || busy}
        title={disabled ? 'Wait for the running sync to end' : 'Detach this dataset from the server, keeping its data here'}
        onClick={() => void stop()}
      >
        Stop syncing
      </button>
    </span>
  );
}
