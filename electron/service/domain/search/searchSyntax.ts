import { badRequest } from '../errors.js';

/**
 * The search box's syntax, parsed before anything reaches FTS5 (whose own syntax — `*`, `^`,
 * `:`, parentheses, NEAR/AND/OR/NOT — a user's text must never become):
 * - a word is a prefix while the user types (`bas` finds basalt);
 * - words joined by punctuation without a space (`CSV-1`, `S-000123`, `2-theta`) are a phrase of
 *   their pieces, the last one still a prefix: the index splits them the same way;
 * - `"…"` is a phrase of whole words, adjacent and in order; a quote left open runs to the end
 *   and its last word stays a prefix (the closing quote is not typed yet);
 * - `-word`, `-CSV-1`, `-"a phrase"` exclude records holding those whole words;
 * - a lone `-`, a stray quote and any other punctuation only separate words.
 */
export interface SearchPart {
  /** The part as typed, for messages. */
  typed: string;
  /** Folded by FTS5's tokenizer, not here: they are quoted into the query as typed. */
  words: string[];
  /** The last word stands for every indexed term it begins. */
  prefix: boolean;
}

export interface ParsedSearch {
  include: SearchPart[];
  exclude: SearchPart[];
}

/** Words in one search, at most: a pasted paragraph is not a search. */
const MAX_WORDS = 16;

/**
 * One part: an optional `-` touching what follows, then a quoted text (its closing quote, when
 * typed, in group 3) or a run up to a space or a quote. One pass, linear in the input.
 */
const PART = /(-(?=\S))?(?:"([^"]*)("?)|([^\s"]+))/gu;

/** The index's word characters (its unicode61 tokenizer splits on everything else). */
export const searchWords = (text: string): string[] => text.match(/[\p{L}\p{N}_]+/gu) ?? [];

export function parseSearch(input: string): ParsedSearch {
  const out: ParsedSearch = { include: [], exclude: [] };
  let room = MAX_WORDS;
  for (const m of input.normalize('NFKC').matchAll(PART)) {
    const [, minus, quotedText, close, plain] = m;
    const quoted = quotedText !== undefined;
    const words = searchWords(quoted ? quotedText : plain!).slice(0, room);
    if (words.length === 0) continue;
    room -= words.length;
    // Exclusions are whole words: a prefix would drop records while the word is half typed.
    const prefix = !minus && (!quoted || close === '');
    (minus ? out.exclude : out.include).push({ typed: m[0], words, prefix });
    if (room === 0) break;
  }
  return out;
}

/**
 * The FTS5 query for a parsed search. `terms(word)` may name the indexed terms a last word's
 * prefix stands for (null: too many, keep the prefix query). Null when there is nothing to find.
 */
export function buildMatch(p: ParsedSearch, terms: (word: string) => string[] | null = () => null): string | null {
  if (p.include.length === 0) {
    if (p.exclude.length === 0) return null;
    const shown = p.exclude.map((x) => x.typed).join(' ');
    throw badRequest(`A search needs a word to find: ${shown} only excludes records. Add a word to look for, e.g. "basalt ${shown}".`);
  }
  const include = p.include.map((x) => part(x, terms)).join(' AND ');
  if (p.exclude.length === 0) return include;
  return `(${include}) NOT (${p.exclude.map((x) => part(x, terms)).join(' OR ')})`;
}

function part({ words, prefix }: SearchPart, terms: (word: string) => string[] | null): string {
  const quoted = (ws: string[]) => `"${ws.join(' ').replace(/"/g, '""')}"`;
  if (!prefix) return quoted(words);
  const head = words.slice(0, -1);
  const found = terms(words.at(-1)!);
  if (found === null) return `${quoted(words)}*`;
  // No term: nothing can match, and the exact words say so at once.
  if (found.length === 0) return quoted(words);
  const alts = found.map((t) => quoted([...head, t]));
  return alts.length === 1 ? alts[0]! : `(${alts.join(' OR ')})`;
}
