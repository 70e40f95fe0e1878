import type { LiveStatus } from '../../../shared/schemas/sync.js';
import { localStamp } from '../lib/dates.js';

/**
 * What the live panel says about a pause, or null when not paused. The server retries a pause
 * that waiting can end (a lost super-user: `next_try` set) by itself; only one without a retry
 * (a refused login) needs the remote attached again.
 */
export function livePausedText(live: Pick<LiveStatus, 'state' | 'reason' | 'next_try'>): string | null {
  if (live.state !== 'paused') return null;
  const reason = (live.reason ?? 'unknown reason').replace(/\.$/, '');
  if (live.next_try)
    return `Paused: ${reason}. Live sync waits for a super-user and tries again by itself (next at ${localStamp(new Date(live.next_try))}) and when the window regains focus.`;
  return `Paused: ${reason}. Attach the remote again (Change…) to resume.`;
}
