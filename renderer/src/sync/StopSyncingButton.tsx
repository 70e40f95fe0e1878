import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorText, stopSyncing, stopSyncingPreview } from '../lib/api';
import { keys } from '../lib/queries';
import { confirmDialog } from '../ui/Dialog';
import { toast } from '../ui/toasts';
import { SteadyButton } from '../ui/SteadyButton';

/**
 * "Stop syncing" one dataset, after an in-app confirmation that names the files never downloaded
 * (they become unavailable): the service drops its sync state (changes not sent yet and open
 * conflicts included) and keeps its data here as local data.
 */
export function StopSyncingButton({ dataset, name, disabled }: { dataset: string; name: string; disabled: boolean }) {
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const stop = async () => {
    setBusy(true);
    let missing: number;
    try {
      missing = (await stopSyncingPreview(dataset)).files_not_local;
    } catch (e) {
      toast({ kind: 'error', text: `Could not stop syncing ${name}: ${errorText(e)}` });
      setBusy(false);
      return;
    }
    setBusy(false);
    // Files never downloaded live only on the server: said before confirming, as they go for good.
    const lost = missing
      ? ` ${missing} ${missing === 1 ? 'file was' : 'files were'} never downloaded: ${missing === 1 ? 'it' : 'they'} will no longer open here (choose "Keep files offline" first to keep ${missing === 1 ? 'it' : 'them'}).`
      : '';
    const ok = await confirmDialog({
      title: `Stop syncing ${name}?`,
      body: `Its records and the files on this computer stay as local data. Changes not sent yet and open conflicts are dropped; the server keeps its copy.${lost}`,
      confirm: missing ? `Stop syncing, lose ${missing} ${missing === 1 ? 'file' : 'files'}` : 'Stop syncing',
      danger: true,
    });
    if (!ok) return;
    setBusy(true);
    try {
      const dropped = await stopSyncing(dataset, missing > 0);
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
      <SteadyButton
        type="button"
        className="link"
        disabled={disabled || busy}
        title={disabled ? 'Wait for the running sync to end' : 'Detach this dataset from the server, keeping its data here'}
        onClick={() => void stop()}
      >
        Stop syncing
      </SteadyButton>
    </span>
  );
}
