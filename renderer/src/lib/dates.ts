import { formatTimestamp } from '../../../shared/dates.js';

// Timestamps travel in UTC (`YYYY-MM-DD HH:MM:SS`); people read and type them in their own zone.
// One display format everywhere: `YYYY-MM-DD HH:MM` local, the zone named beside it or on hover.

const pad = (n: number) => String(n).padStart(2, '0');

/** A wire timestamp (UTC, with or without seconds/time) as a Date; null when it is not one. */
export function fromWire(ts: string | null | undefined): Date | null {
  if (!ts) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(ts);
  if (!m) return null;
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
  return new Date(Date.UTC(y!, mo! - 1, d!, h, mi, s));
}

/** `YYYY-MM-DD HH:MM` in the user's zone. */
export function localStamp(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The zone's name at that instant (summer and winter time differ): short ("MST") or long. */
export function zoneName(d: Date, style: 'short' | 'long' = 'short'): string {
  const f = zoneFormat(style, d);
  const part = f.formatToParts(d).find((p) => p.type === 'timeZoneName');
  return part?.value ?? f.resolvedOptions().timeZone;
}

// Building an Intl.DateTimeFormat costs far more than using one (a few ms per record shown in
// the pane, whose dates each asked for two). The key holds the date's UTC offset, which the
// local stamp follows live: when the machine's zone changes, a date whose offset changed gets a
// fresh format, so its label names the zone its time was computed in, never the old one.
const zoneFormats = new Map<string, Intl.DateTimeFormat>();
function zoneFormat(style: 'short' | 'long', d: Date): Intl.DateTimeFormat {
  const key = `${style} ${d.getTimezoneOffset()}`;
  let f = zoneFormats.get(key);
  if (!f) zoneFormats.set(key, (f = new Intl.DateTimeFormat(undefined, { timeZoneName: style })));
  return f;
}

/** A wire timestamp shown as local time with the zone: `2031-03-04 05:06 MST`. */
export function showLocal(ts: string): string {
  const d = fromWire(ts);
  return d ? `${localStamp(d)} ${zoneName(d)}` : ts;
}

/** Hover text: the long zone name and the UTC time that is stored. */
export function dateTitle(ts: string): string {
  const d = fromWire(ts);
  return d ? `${localStamp(d)} ${zoneName(d, 'long')} (${formatTimestamp(d).slice(0, 16)} UTC)` : ts;
}

/**
 * What a datetime-local input holds (`YYYY-MM-DDTHH:MM`, the user's wall clock) as the UTC wire
 * timestamp; null for an incomplete or impossible time.
 */
export function localInputToWire(value: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s = 0] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
  const local = new Date(y!, mo! - 1, d!, h, mi, s);
  return Number.isNaN(local.getTime()) ? null : formatTimestamp(local);
}
