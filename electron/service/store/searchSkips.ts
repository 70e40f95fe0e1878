import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import { perConnection } from './prepared.js';
import { refetchableTransaction } from './tx.js';
import { SEARCH_TOKENIZE, asciiTokens, byteCompare } from './searchTokens.js';

const STATE_KEY = 'search_skips';

/** Where the background pass over the vocabulary is (rules: domain/search/searchIndex.ts). */
export interface SkipPass {
  /** The last term the pass under way has done; null: no pass under way. */
  scan: string | null;
  /** The index cursor when the pass under way began. */
  began: number;
  /** The index cursor when the last finished pass began; -1: none finished. */
  done: number;
}
const NO_PASS: SkipPass = { scan: null, began: -1, done: -1 };

/**
 * `search_skips` (migration 023): for the terms of long doclists, the next indexed term. Kept
 * exact: no indexed term ever lies strictly between a term and its `next`. Every write of new
 * terms into `record_search` calls `keep` in its own transaction (store/searchIndex.ts reindex,
 * the one writer that adds terms; the delete trigger and deletes only remove them, which the
 * invariant allows). The background pass writes each entry from the vocabulary as it is then.
 */
export const searchSkipsStore = perConnection((db: Db) => {
  const s = {
    next: db.prepare<[string], { next: string | null }>('SELECT next FROM search_skips WHERE term = ?'),
    all: db.prepare<[], { term: string; next: string | null }>('SELECT term, next FROM search_skips ORDER BY term'),
    setNext: db.prepare<[string, string]>('UPDATE search_skips SET next = ? WHERE term = ?'),
    // The 'row' vocabulary yields terms in order; each row counts the term's documents (walks its doclist).
    rows: db.prepare<[string], { term: string; doc: number }>('SELECT term, doc FROM record_search_rows WHERE term > ?'),
    dropBetween: db.prepare<[string, string]>('DELETE FROM search_skips WHERE term > ? AND term <= ?'),
    dropAfter: db.prepare<[string]>('DELETE FROM search_skips WHERE term > ?'),
    put: db.prepare<[string, string | null]>('INSERT OR REPLACE INTO search_skips (term, next) VALUES (?, ?)'),
    size: db.prepare<[], { rows: number; bytes: number }>(
      'SELECT count(*) AS rows, COALESCE(SUM(length(CAST(term AS BLOB)) + COALESCE(length(CAST(next AS BLOB)), 0)), 0) AS bytes FROM search_skips',
    ),
    pass: db.prepare<[], string>(`SELECT value FROM meta WHERE key = '${STATE_KEY}'`).pluck(),
    setPass: db.prepare<[string]>(
      `INSERT INTO meta (key, value) VALUES ('${STATE_KEY}', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
    ),
  };

  // Bodies that are not plain ASCII are tokenized by FTS5 itself, with the index's own tokenizer:
  // a scratch table in this connection's temp schema, emptied after each use. It is created on
  // every use: keep() runs in reindex's transaction, and a rollback of the one that created it
  // drops it again (the cached statements re-prepare against the new table).
  let scratch: { ins: Statement<[string]>; terms: Statement<[], string>; clear: Statement<[]> } | null = null;
  const ftsTokens = (bodies: string[]): string[] => {
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_tokenize USING fts5(body, content='', tokenize='${SEARCH_TOKENIZE}');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_tokenize_rows USING fts5vocab(temp, search_tokenize, 'row');`);
    if (!scratch) {
      scratch = {
        ins: db.prepare<[string]>('INSERT INTO temp.search_tokenize (body) VALUES (?)'),
        terms: db.prepare<[], string>('SELECT term FROM temp.search_tokenize_rows').pluck(),
        clear: db.prepare<[]>("INSERT INTO temp.search_tokenize (search_tokenize) VALUES ('delete-all')"),
      };
    }
    for (const b of bodies) scratch.ins.run(b);
    const terms = scratch.terms.all();
    scratch.clear.run();
    return terms;
  };

  return {
    /** The indexed term after `term` when it has an entry (null: none after it); undefined: no entry. */
    next: (term: string): string | null | undefined => s.next.get(term)?.next,

    /**
     * Keeps every entry exact after `bodies` were indexed, in the caller's transaction: any of
     * their terms lying between an entry's term and its `next` becomes the new `next`. Every
     * entry is checked, not only the nearest one below each term: an entry whose term lost its
     * documents may overlap another's span.
     */
    keep: (bodies: string[]): void => {
      const skips = s.all.all();
      if (skips.length === 0 || bodies.length === 0) return;
      const found = new Set<string>();
      const other: string[] = [];
      for (const b of bodies) {
        const t = asciiTokens(b);
        if (t) for (const w of t) found.add(w);
        else other.push(b);
      }
      if (other.length) for (const w of ftsTokens(other)) found.add(w);
      // Plain ASCII strings sort by their bytes under `<` too; others need byteCompare.
      const terms = other.length ? [...found].sort(byteCompare) : [...found].sort();
      for (const { term, next } of skips) {
        let lo = 0;
        let hi = terms.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (byteCompare(terms[mid]!, term) <= 0) lo = mid + 1;
          else hi = mid;
        }
        const a = terms[lo];
        if (a !== undefined && (next === null || byteCompare(a, next) < 0)) s.setNext.run(a, term);
      }
    },

    pass: (): SkipPass => {
      const v = s.pass.get();
      return v ? (JSON.parse(v) as SkipPass) : NO_PASS;
    },

    /**
     * One slice of a pass over the vocabulary, in one transaction: from the term after
     * `p.from`, until `deadline` (performance.now()) or the last term. Entries in the span are
     * written afresh: a term of at least `long` documents gets one, with the term after it. Moves
     * the pass state with it; returns whether the pass has more to do.
     */
    slice: (p: { from: string; began: number; done: number }, deadline: number, long: number): boolean =>
      refetchableTransaction(db, () => {
        const rows: { term: string; doc: number }[] = [];
        let ended = true;
        for (const r of s.rows.iterate(p.from)) {
          rows.push(r);
          if (rows.length >= 2 && performance.now() >= deadline) {
            ended = false;
            break;
          }
        }
        const span = ended ? rows.length : rows.length - 1;
        if (ended) s.dropAfter.run(p.from);
        else s.dropBetween.run(p.from, rows[span - 1]!.term);
        for (let i = 0; i < span; i++) if (rows[i]!.doc >= long) s.put.run(rows[i]!.term, rows[i + 1]?.term ?? null);
        const state: SkipPass = ended
          ? { scan: null, began: -1, done: p.began }
          : { scan: rows[span - 1]!.term, began: p.began, done: p.done };
        s.setPass.run(JSON.stringify(state));
        return !ended;
      }),

    /** Entries, and the bytes of their terms. */
    size: () => s.size.get()!,
  };
});
