import { notifyManager } from '@tanstack/react-query';
import { useRef, useState } from 'react';

/**
 * A checkbox whose state is the service's (read from the query cache): the click shows at once,
 * and the cache's value takes over once the save has settled and been refetched. Without it the
 * box unchecks itself until the answer (React puts a controlled input back to its props at the
 * end of the event; the editor's fields have the same fix in lib/edits.ts, useShownEntry).
 * `save` settles after the refetch; an error shows the earlier state again (its notice says so).
 */
export function useSavedToggle(stored: boolean, save: (on: boolean) => Promise<unknown>): [boolean, (on: boolean) => void] {
  const [asked, setAsked] = useState<boolean | null>(null);
  // Only the latest click's save hands the box back to the cache: an earlier one settling first
  // would show its own refetched state while the last click is still saving.
  const latest = useRef(0);
  const change = (on: boolean) => {
    const mine = ++latest.current;
    setAsked(on);
    // Scheduled behind the cache's own notification of the refetched value, so the box never
    // shows the old state in between.
    void save(on).finally(() => {
      if (mine === latest.current) notifyManager.schedule(() => setAsked(null));
    });
  };
  return [asked ?? stored, change];
}
