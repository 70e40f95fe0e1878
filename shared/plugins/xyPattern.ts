// x/y patterns (XRD, XRF, Raman … spectra) as ODR records attach them: CSV or whitespace text
// with optional header and comment lines. The Graph Plugin draws what this returns.
import { splitRows, toNumber, type Dialect } from './delimited.js';

export interface XYPattern {
  x: Float64Array;
  y: Float64Array;
  /** Column names from the last header line before the data, when there is one. */
  names: [string, string] | null;
  /** Data-area lines that were not two numbers (kept out of the series). */
  skipped: number;
  dialect: Dialect;
}

export class PatternError extends Error {}

/**
 * The first two numeric columns of a text pattern. Header lines before the data are skipped
 * (the last one names the columns); x is returned ascending.
 */
export function parseXY(text: string): XYPattern {
  const { dialect, rows } = splitRows(text);
  const xs = new Float64Array(rows.length);
  const ys = new Float64Array(rows.length);
  let n = 0;
  let skipped = 0;
  let names: [string, string] | null = null;
  let ascending = true;
  for (const row of rows) {
    const x = toNumber(row[0], dialect.decimalComma);
    const y = toNumber(row[1], dialect.decimalComma);
    if (Number.isFinite(x) && Number.isFinite(y)) {
      if (n > 0 && x < xs[n - 1]!) ascending = false;
      xs[n] = x;
      ys[n] = y;
      n++;
    } else if (n === 0) {
      if (row.length >= 2) names = [row[0]!, row[1]!];
    } else {
      skipped++;
    }
  }
  if (n === 0) {
    throw new PatternError(rows.length === 0 ? 'The file is empty' : 'No two numeric columns (x and y) were found in the file');
  }
  let x = xs.slice(0, n);
  let y = ys.slice(0, n);
  if (!ascending) {
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => x[a]! - x[b]!);
    x = Float64Array.from(order, (i) => xs[i]!);
    y = Float64Array.from(order, (i) => ys[i]!);
  }
  return { x, y, names, skipped, dialect };
}
