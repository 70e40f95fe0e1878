/** The full-text index's tokenizer (migration 003), shared with the skip list's own tokenizing (searchSkips.ts). */
export const SEARCH_TOKENIZE = 'unicode61 remove_diacritics 2';

/** FTS5 cuts every token to this many bytes before indexing it (FTS5_MAX_TOKEN_SIZE). */
const MAX_TOKEN_BYTES = 32768;

// Printable ASCII and the usual whitespace: a body of these alone tokenizes under unicode61 as
// lower-cased runs of letters and digits (every other ASCII character separates). Anything else
// (accents, ß, Greek, CJK, other control characters) goes through FTS5's own tokenizer.
// test/unit/searchTokens.test.ts checks both against FTS5 itself.
const PLAIN = /^[\x20-\x7e\t\n\r]*$/;
const WORD = /[A-Za-z0-9]+/g;

/** The terms FTS5 indexes for `body`, when it is plain ASCII; null otherwise (ask FTS5). */
export function asciiTokens(body: string): string[] | null {
  if (!PLAIN.test(body)) return null;
  const out: string[] = [];
  for (const m of body.matchAll(WORD))
    out.push(m[0].length > MAX_TOKEN_BYTES ? m[0].slice(0, MAX_TOKEN_BYTES).toLowerCase() : m[0].toLowerCase());
  return out;
}

/**
 * Orders strings as SQLite's BINARY collation and FTS5 order terms: by their UTF-8 bytes, which
 * is code point order. JS `<` compares UTF-16 units, which puts U+10000 and above (surrogates,
 * 0xD800–0xDFFF) before U+E000–U+FFFF.
 */
export function byteCompare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return fold(x) - fold(y);
  }
  return a.length - b.length;
}
const fold = (u: number) => (u >= 0xe000 ? u - 0x800 : u >= 0xd800 ? u + 0x2000 : u);
