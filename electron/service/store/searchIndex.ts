import type { Db } from './db.js';
import { perConnection } from './prepared.js';
import { refetchableTransaction } from './tx.js';
import { searchSkipsStore } from './searchSkips.js';

const CURSOR_KEY = 'search_seq';

/** The full-text index (`record_search`) and its cursor over the change log (rules: domain/search/searchIndex.ts). */
export const searchIndexStore = perConnection((db: Db) => {
  const skips = searchSkipsStore(db);
  const s = {
    cursor: db.prepare<[], string>(`SELECT value FROM meta WHERE key = '${CURSOR_KEY}'`).pluck(),
    setCursor: db.prepare<[string]>(
      `INSERT INTO meta (key, value) VALUES ('${CURSOR_KEY}', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
    ),
    changes: db.prepare<[number, number], { seq: number; top_record_uuid: string | null }>(
      'SELECT seq, top_record_uuid FROM change_log WHERE seq > ? ORDER BY seq LIMIT ?',
    ),
    lastSeq: db.prepare<[], number>('SELECT COALESCE(MAX(seq), 0) FROM change_log').pluck(),
    rids: db
      .prepare<[string], number>('SELECT rid FROM records WHERE +parent_rid IS NULL AND uuid IN (SELECT value FROM json_each(?))')
      .pluck(),
    // Every word a record tree shows: text and numbers, chosen options and tags, file names, ids.
    bodies: db.prepare<[string], { rid: number; body: string }>(`
      WITH tops(rid) AS (SELECT value FROM json_each(?)),
      words(top, w) AS (
        SELECT r.top_rid, v.value FROM records r JOIN field_values v ON v.record_rid = r.rid
          WHERE r.top_rid IN tops AND v.value IS NOT NULL AND v.value != ''
        UNION ALL SELECT r.top_rid, o.name FROM records r JOIN option_selections s ON s.record_rid = r.rid JOIN radio_options o ON o.id = s.option_id
          WHERE r.top_rid IN tops
        UNION ALL SELECT r.top_rid, t.name FROM records r JOIN tag_selections s ON s.record_rid = r.rid JOIN tags t ON t.id = s.tag_id
          WHERE r.top_rid IN tops
        UNION ALL SELECT r.top_rid, f.original_name FROM records r JOIN files f ON f.record_rid = r.rid
          WHERE r.top_rid IN tops AND +f.parent_rid IS NULL
        UNION ALL SELECT r.rid, r.uuid || ' ' || r.internal_id FROM records r WHERE r.rid IN tops
      )
      SELECT top AS rid, group_concat(w, ' ') AS body FROM words GROUP BY top`),
    // One entry, not a term's count: the 'instance' vocabulary stops at the first (migration 020).
    // No upper bound in SQL: with one, a probe past the last term in range walked the whole
    // doclist of the term before it (3 ms at 1M records, 0.3 ms at 100k); the caller checks it.
    termFrom: db.prepare<[string], string>('SELECT term FROM record_search_instances WHERE term >= ? LIMIT 1').pluck(),
    del: db.prepare<[number]>('DELETE FROM record_search WHERE rowid = ?'),
    ins: db.prepare<[number, string]>('INSERT INTO record_search (rowid, body) VALUES (?, ?)'),
  };
  return {
    /** The last change-log entry indexed. */
    cursor: () => Number(s.cursor.get() ?? 0),
    lastSeq: () => s.lastSeq.get() ?? 0,
    /** Indexed terms in [from, to), in order, at most `limit`. */
    termsBetween: (from: string, to: string, limit: number): string[] => {
      const out: string[] = [];
      // `term + U+0001` is the next possible term: `>` would walk every entry of `term` first, and
      // the tokenizer never keeps a control character in a term.
      // JS order equals the index's byte order here: callers pass ASCII bounds (see matchQuery).
      // Past a term of a long doclist, that walk is the term's whole doclist (FTS5 seeks a term by
      // the page it starts on): its skip entry names the next term, whose start a seek finds at once.
      const inRange = (t: string | undefined): t is string => t !== undefined && t < to;
      const after = (t: string): string | undefined => {
        const next = skips.next(t);
        if (next === undefined) return s.termFrom.get(`${t}\u0001`);
        return next === null ? undefined : s.termFrom.get(next);
      };
      for (let t = s.termFrom.get(from); inRange(t) && out.length < limit; t = after(t)) out.push(t);
      return out;
    },
    /** Change-log entries after `seq`, oldest first, at most `limit`. */
    changesAfter: (seq: number, limit: number) => s.changes.all(seq, limit),
    /**
     * Re-indexes these top-level records (gone ones drop out) and moves the cursor, in one
     * transaction without a WAL fsync of its own: the index is rebuilt from the durable change log,
     * so a power cut that takes this commit takes its cursor with it and the indexer redoes it.
     * Its own fsync blocked the one JS thread a few times a second under writers (6 % of the
     * thread at 8 writers on a slow disk).
     */
    reindex: (topUuids: string[], cursor: number) =>
      refetchableTransaction(db, () => {
        const rids = s.rids.all(JSON.stringify(topUuids));
        const bodies = s.bodies.all(JSON.stringify(rids));
        for (const { rid, body } of bodies) {
          s.del.run(rid);
          s.ins.run(rid, body);
        }
        skips.keep(bodies.map((b) => b.body));
        s.setCursor.run(String(cursor));
      }),
  };
});
