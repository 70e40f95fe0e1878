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

/** "1 record", "12,345 records". */
export const countOf = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;
