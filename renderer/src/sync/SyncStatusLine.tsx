import { useEffect, useState } from 'react';
import type { LiveStatus } from '../../../shared/schemas/sync';
import { syncFocus } from '../lib/api';
import { localStamp } from '../lib/dates';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function ago(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return `at ${localStamp(new Date(iso))}`;
}

/** The one sentence about sync the header always shows, and the tone it is shown in. */
export function describeLive(l: LiveStatus, now: number): { text: string; tone: 'ok' | 'busy' | 'warn' | 'bad' } {
  const waiting = l.pending ? ` · ${plural(l.pending, 'change')} waiting` : '';
  const attention = l.attention ? ` · ${l.attention} need${l.attention === 1 ? 's' : ''} attention` : '';
  switch (l.state) {
    case 'syncing':
      return { text: `Syncing…${attention}`, tone: 'busy' };
    case 'offline':
      return { text: `Offline since ${localStamp(new Date(l.since ?? Date.now()))}${waiting}${attention}`, tone: 'warn' };
    case 'paused':
      return { text: `Sync paused: ${l.reason ?? 'unknown reason'}${waiting}`, tone: 'bad' };
    case 'off':
      return { text: `Live sync off${waiting}${attention}`, tone: attention ? 'warn' : 'busy' };
    default:
      return {
        text: `${l.last_sync ? `Online · synced ${ago(l.last_sync, now)}` : 'Online'}${waiting}${attention}`,
        tone: attention ? 'warn' : 'ok',
      };
  }
}

/**
 * Live sync status in the header (online / syncing / offline since … with N waiting / needs
 * attention). Regaining window focus asks live remotes to pull at once.
 */
export function SyncStatusLine({ live, onOpen }: { live: LiveStatus | undefined; onOpen: () => void }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 5000);
    return () => clearInterval(t);
  }, []);
  useEffect(() => {
    const onFocus = () => void syncFocus().catch(() => undefined);
    window.addEventListener('focus', onFocus);
    return () => window.removeEventListener('focus', onFocus);
  }, []);
  if (!live) return null;
  const { text, tone } = describeLive(live, now);
  return (
    <button
      type="button"
      className={`sync-line sync-${tone}`}
      data-testid="sync-status"
      data-state={live.state}
      onClick={onOpen}
      // The whole sentence: in a narrow window the line shows only its start.
      title={`${text} (${live.reason ?? live.url})`}
    >
      <span className="sync-dot" aria-hidden="true" />
      <span role="status">{text}</span>
    </button>
  );
}
