// Splits the text files researchers attach to ODR records (x/y patterns, small tables) into
// rows of cells. Real files mix comment lines, header lines, semicolons or tabs, runs of
// spaces and decimal commas; papaparse does the quoted-CSV work, runs of whitespace are split here.
import Papa from 'papaparse';

/** ' ' stands for any run of spaces or tabs between cells. */
export type Delimiter = ',' | ';' | '\t' | ' ';

export interface Dialect {
  delimiter: Delimiter;
  /** Numbers are written 1,5 rather than 1.5. */
  decimalComma: boolean;
}

const COMMENT = /^\s*(#|%|!|\/\/)/;
const LINE = /\r\n|\n|\r/;
const DECIMAL_COMMA_NUMBER = /^[-+]?\d+,\d+([eE][-+]?\d+)?$/;
const NUMBER_OR_COMMA_NUMBER = /^[-+]?(\d+(,\d+)?|\d*\.\d+|\d+\.)([eE][-+]?\d+)?$/;
const SAMPLE_LINES = 50;

export const isComment = (line: string): boolean => COMMENT.test(line);

/** The lines that carry data or headers: blank and comment lines dropped, trailing blanks trimmed. */
export function contentLines(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.replace(/^\uFEFF/, '').split(LINE)) {
    const line = raw.trimEnd();
    if (line.trim() === '' || COMMENT.test(line)) continue;
    out.push(line);
  }
  return out;
}

/** Guesses the separator and decimal mark from the first lines. */
export function detectDialect(lines: string[]): Dialect {
  const sample = lines.slice(0, SAMPLE_LINES);
  const has = (c: string) => sample.some((l) => l.includes(c));
  const commaCells = (cells: string[]) => cells.some((c) => DECIMAL_COMMA_NUMBER.test(c.trim()));
  if (has('\t')) {
    return { delimiter: '\t', decimalComma: sample.some((l) => commaCells(l.split('\t'))) };
  }
  if (has(';')) return { delimiter: ';', decimalComma: sample.some((l) => commaCells(l.split(';'))) };
  if (has(',')) {
    // "1,5 2,3" is two numbers with decimal commas; "1, 2" and "1,2" are two cells.
    const spaced = sample.filter((l) => /\S\s+\S/.test(l.trim()));
    const allNumbers =
      spaced.length > 0 &&
      spaced.every((l) => {
        const cells = l.trim().split(/\s+/);
        return cells.length >= 2 && cells.every((c) => NUMBER_OR_COMMA_NUMBER.test(c)) && commaCells(cells);
      });
    if (allNumbers) return { delimiter: ' ', decimalComma: true };
    return { delimiter: ',', decimalComma: false };
  }
  return { delimiter: ' ', decimalComma: false };
}

export interface Rows {
  dialect: Dialect;
  rows: string[][];
}

/** Rows of trimmed cells, in file order, without blank or comment lines. */
export function splitRows(text: string): Rows {
  const lines = contentLines(text);
  const dialect = detectDialect(lines);
  if (dialect.delimiter === ' ') {
    return { dialect, rows: lines.map((l) => l.trim().split(/\s+/)) };
  }
  const parsed = Papa.parse<string[]>(lines.join('\n'), { delimiter: dialect.delimiter });
  return { dialect, rows: parsed.data.map((r) => r.map((c) => c.trim())) };
}

/** A cell as a number (NaN when it is not one), honouring the file's decimal mark. */
export function toNumber(cell: string | undefined, decimalComma: boolean): number {
  if (cell === undefined) return Number.NaN;
  const s = decimalComma ? cell.replace(',', '.') : cell;
  if (s === '' || !/^[-+]?(\d|\.\d)/.test(s)) return Number.NaN;
  return Number(s);
}
