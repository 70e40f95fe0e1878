/** The decimal separator where the user's locale writes numbers ("," in de-DE, "." in en-US). */
export function decimalSeparator(locale: string = navigator.language): string {
  return new Intl.NumberFormat(locale).formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.';
}

/**
 * A number typed the user's way, in the service's notation: where the locale writes "1,5" a single
 * comma (and no point) is the decimal mark. Elsewhere a comma is a thousands separator, too
 * ambiguous to guess at, so the text goes on unchanged and validation names the problem.
 */
export function normaliseTypedDecimal(input: string, locale?: string): string {
  const s = input.trim();
  if (decimalSeparator(locale) !== ',') return input;
  return /^[+-]?\d*,\d+(?:[eE][+-]?\d+)?$/.test(s) ? s.replace(',', '.') : input;
}

/** A file size as people read it: "5 bytes", "12.3 KB", "4.0 MB" (1 KB = 1,024 bytes). */
export function formatBytes(n: number | string | undefined): string {
  const b = Number(n ?? 0);
  if (!Number.isFinite(b) || b < 1024) return `${Number.isFinite(b) ? b : 0} byte${b === 1 ? '' : 's'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = b / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

/** "1 record", "12,345 records". */
export const countOf = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;
