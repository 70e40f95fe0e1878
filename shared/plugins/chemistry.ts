// ODR's Chemistry Field: text between subscript delimiters (default "_") is a subscript, between
// superscript delimiters (default "^") a superscript, "[box]" a vacancy square. Subscripts are
// found first, then superscripts inside every piece, as ODR's plugin applies them.

export interface ChemPiece {
  text: string;
  sub: boolean;
  sup: boolean;
}

export interface ChemOptions {
  subscript_delimiter?: string;
  superscript_delimiter?: string;
}

function splitBy(text: string, delim: string): { text: string; inside: boolean }[] {
  const out: { text: string; inside: boolean }[] = [];
  let rest = text;
  for (;;) {
    const open = rest.indexOf(delim);
    const close = open < 0 ? -1 : rest.indexOf(delim, open + delim.length);
    // An empty pair ("__") is not a subscript: ODR's pattern needs one character or more.
    if (open < 0 || close < 0) break;
    if (close === open + delim.length) {
      out.push({ text: rest.slice(0, close), inside: false });
      rest = rest.slice(close);
      continue;
    }
    if (open > 0) out.push({ text: rest.slice(0, open), inside: false });
    out.push({ text: rest.slice(open + delim.length, close), inside: true });
    rest = rest.slice(close + delim.length);
  }
  if (rest) out.push({ text: rest, inside: false });
  return out;
}

export function chemistryPieces(value: string, opts: ChemOptions = {}): ChemPiece[] {
  const sub = opts.subscript_delimiter || '_';
  const sup = opts.superscript_delimiter || '^';
  const text = value.replace(/\[box\]/g, '\u25FB');
  const pieces: ChemPiece[] = [];
  for (const s of splitBy(text, sub)) {
    for (const p of splitBy(s.text, sup)) pieces.push({ text: p.text, sub: s.inside, sup: p.inside });
  }
  return pieces.filter((p) => p.text !== '');
}

/** The formula as plain text without delimiters (for titles and accessible names). */
export const chemistryText = (value: string, opts?: ChemOptions): string =>
  chemistryPieces(value, opts)
    .map((p) => p.text)
    .join('');
