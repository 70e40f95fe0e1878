import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { LiveStatus } from '../../../shared/schemas/sync';
import { errorText, setLive } from '../lib/api';
import { keys } from '../lib/queries';
import { livePausedText } from './livePausedText';
import { toast } from '../ui/toasts';
import { useSavedToggle } from '../ui/useSavedToggle';

/** Live mode of the remote: on or off, and how often the server's changes are pulled. */
export function LiveSettings({ live }: { live: LiveStatus }) {
  const qc = useQueryClient();
  const [seconds, setSeconds] = useState(String(live.pull_seconds));
  const save = async (change: { enabled?: boolean; pull_seconds?: number }) => {
    try {
      await setLive(live.remote_id, change);
      await qc.invalidateQueries({ queryKey: keys.sync });
    } catch (e) {
      toast({ kind: 'error', text: `Live sync not changed: ${errorText(e)}` });
    }
  };
  const [enabled, setEnabled] = useSavedToggle(live.enabled, (on) => save({ enabled: on }));
  const commitSeconds = () => {
    const n = Number(seconds);
    if (seconds.trim() === '' || !Number.isInteger(n) || n < 0) {
      toast({ kind: 'error', text: 'Pull interval: a whole number of seconds, 0 or more' });
      setSeconds(String(live.pull_seconds));
    } else if (n !== live.pull_seconds) void save({ pull_seconds: n });
  };
  const paused = livePausedText(live);
  return (
    <section aria-label="Live sync" className="sync-live">
      <label className="check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        Live sync: send edits and fetch the server's changes in the background
      </label>
      {live.enabled && (
        <label className="small muted">
          Fetch changes every{' '}
          <input
            type="number"
            min={0}
            step={1}
            className="seconds"
            aria-label="Pull interval in seconds"
            value={seconds}
            onChange={(e) => setSeconds(e.target.value)}
            onBlur={commitSeconds}
            onKeyDown={(e) => {
              if (e.key === 'Enter') commitSeconds();
            }}
          />{' '}
          s (0: only when the window regains focus)
        </label>
      )}
      {paused && (
        <p className="field-error small" role="alert">
          {paused}
        </p>
      )}
    </section>
  );
}
