// Timestamps on the wire are `YYYY-MM-DD HH:MM:SS` in UTC; the far-future date marks "not public".
export const PRIVATE_DATE = '2200-01-01 00:00:00';
export const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

export function formatTimestamp(d: Date): string {
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

/** Public means "not the private date and not in the future" (scheduled publication). */
export function isPublicAt(publicDate: string, now: string): boolean {
  return publicDate !== PRIVATE_DATE && publicDate <= now;
}

const UNIT_MS: Record<string, number> = {
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
};

function validCalendar(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): boolean {
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return (
    t.getUTCFullYear() === y &&
    t.getUTCMonth() === mo - 1 &&
    t.getUTCDate() === d &&
    t.getUTCHours() === h &&
    t.getUTCMinutes() === mi &&
    t.getUTCSeconds() === s
  );
}

const RELATIVE = /^([+-]\s*\d+)\s*(second|minute|hour|day|week)s?$/i;

/** "now" or "+3 days": a date that means something only against the time it is read at. */
export function isRelativeDateInput(input: string): boolean {
  const s = input.trim();
  return /^now$/i.test(s) || RELATIVE.test(s);
}

/**
 * Parses the date strings ODR clients send for `public_date` / `created`: `now`,
 * `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]`, ISO 8601 with `T`, fraction and zone, and relative
 * `+N unit` forms. Returns the canonical UTC timestamp, or null when the input is not a date
 * (the real server answers 500 there; we answer 400).
 */
export function parseDateInput(input: string, now: Date): string | null {
  const s = input.trim();
  if (s === '') return null;
  if (/^now$/i.test(s)) return formatTimestamp(now);
  const rel = RELATIVE.exec(s);
  if (rel) {
    const n = Number(rel[1]!.replace(/\s/g, ''));
    return formatTimestamp(new Date(now.getTime() + n * UNIT_MS[rel[2]!.toLowerCase()]!));
  }
  const plain = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/.exec(s);
  if (plain) {
    const [y, mo, d, h, mi, sec] = plain.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
    if (!validCalendar(y!, mo!, d!, h, mi, sec)) return null;
    return `${plain[1]}-${plain[2]}-${plain[3]} ${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}:${String(sec).padStart(2, '0')}`;
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(s)) {
    const t = Date.parse(s);
    if (!Number.isNaN(t)) return formatTimestamp(new Date(t));
  }
  return null;
}
