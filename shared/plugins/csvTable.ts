// Tables attached as CSV files (the CSV Table Plugin): header detection and a sort order that
// compares numbers as numbers.
import { splitRows, toNumber, type Dialect } from './delimited.js';

export interface CsvTable {
  header: string[];
  /** Whether the header came from the file (else "Column 1" …). */
  namedHeader: boolean;
  rows: string[][];
  dialect: Dialect;
}

export function parseTable(text: string): CsvTable {
  const { dialect, rows } = splitRows(text);
  const width = rows.reduce((w, r) => Math.max(w, r.length), 0);
  const first = rows[0] ?? [];
  const namedHeader = first.length > 0 && first.every((c) => c !== '' && Number.isNaN(toNumber(c, dialect.decimalComma)));
  const header = Array.from({ length: width }, (_, i) => (namedHeader && first[i]) || `Column ${i + 1}`);
  return { header, namedHeader, rows: namedHeader ? rows.slice(1) : rows, dialect };
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** Row indexes sorted by one column: numbers before text, numbers numerically, blanks last. */
export function sortedIndexes(table: CsvTable, column: number, dir: 'asc' | 'desc'): number[] {
  const { rows, dialect } = table;
  const nums = rows.map((r) => toNumber(r[column], dialect.decimalComma));
  const sign = dir === 'asc' ? 1 : -1;
  const idx = rows.map((_, i) => i);
  return idx.sort((a, b) => {
    const ta = rows[a]![column] ?? '';
    const tb = rows[b]![column] ?? '';
    if (ta === '' || tb === '') return ta === tb ? a - b : ta === '' ? 1 : -1;
    const na = nums[a]!;
    const nb = nums[b]!;
    const aNum = !Number.isNaN(na);
    const bNum = !Number.isNaN(nb);
    let c: number;
    if (aNum && bNum) c = na - nb;
    else if (aNum !== bNum) c = aNum ? -1 : 1;
    else c = collator.compare(ta, tb);
    return c === 0 ? a - b : c * sign;
  });
}
