import type { Statement } from 'better-sqlite3';
import type { Ctx } from '../context.js';

const BATCH = 2000;
const CURSOR_KEY = 'search_seq';

/**
 * Keeps the full-text index in step with the change log, off the write path: writes stay as
 * fast as before, and the index follows within one tick. Searches call `catchUp()` first, so
 * a user always finds what they just typed.
 */
export class SearchIndex {
  private readonly s: Record<string, Statement>;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private holds = 0;

  constructor(private readonly ctx: Ctx) {
    const db = ctx.db;
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      cursor: p(`SELECT value FROM meta WHERE key = '${CURSOR_KEY}'`).pluck(),
      setCursor: p(`INSERT INTO meta (key, value) VALUES ('${CURSOR_KEY}', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`),
      changes: p(`SELECT seq, top_record_uuid FROM change_log WHERE seq > ? ORDER BY seq LIMIT ${BATCH}`),
      lastSeq: p('SELECT COALESCE(MAX(seq), 0) FROM change_log').pluck(),
      rids: p(`SELECT rid FROM records WHERE parent_rid IS NULL AND uuid IN (SELECT value FROM json_each(?))`).pluck(),
      // Every word a record tree shows: text and numbers, chosen options and tags, file names, ids.
      bodies: p(`
        WITH tops(rid) AS (SELECT value FROM json_each(?)),
        words(top, w) AS (
          SELECT r.top_rid, v.value FROM records r JOIN field_values v ON v.record_rid = r.rid
            WHERE r.top_rid IN tops AND v.value IS NOT NULL AND v.value != ''
          UNION ALL SELECT r.top_rid, o.name FROM records r JOIN option_selections s ON s.record_rid = r.rid JOIN radio_options o ON o.id = s.option_id
            WHERE r.top_rid IN tops
          UNION ALL SELECT r.top_rid, t.name FROM records r JOIN tag_selections s ON s.record_rid = r.rid JOIN tags t ON t.id = s.tag_id
            WHERE r.top_rid IN tops
          UNION ALL SELECT r.top_rid, f.original_name FROM records r JOIN files f ON f.record_rid = r.rid
            WHERE r.top_rid IN tops AND f.parent_rid IS NULL
          UNION ALL SELECT r.rid, r.uuid || ' ' || r.internal_id FROM records r WHERE r.rid IN tops
        )
        SELECT top AS rid, group_concat(w, ' ') AS body FROM words GROUP BY top`),
      del: p('DELETE FROM record_search WHERE rowid = ?'),
      ins: p('INSERT INTO record_search (rowid, body) VALUES (?, ?)'),
    };
  }

  private cursor(): number {
    return Number(this.s.cursor!.get() ?? 0);
  }

  /** True when the index has seen every change. */
  current(): boolean {
    return this.cursor() >= (this.s.lastSeq!.get() as number);
  }

  /** Indexes one batch of pending changes; returns whether more remain. */
  step(): boolean {
    const from = this.cursor();
    const rows = this.s.changes!.all(from) as { seq: number; top_record_uuid: string | null }[];
    if (rows.length === 0) return false;
    const uuids = [...new Set(rows.flatMap((r) => (r.top_record_uuid ? [r.top_record_uuid] : [])))];
    this.ctx.db
      .transaction(() => {
        const rids = this.s.rids!.all(JSON.stringify(uuids)) as number[];
        for (const { rid, body } of this.s.bodies!.all(JSON.stringify(rids)) as { rid: number; body: string }[]) {
          this.s.del!.run(rid);
          this.s.ins!.run(rid, body);
        }
        this.s.setCursor!.run(String(rows.at(-1)!.seq));
      })
      .immediate();
    return rows.length === BATCH;
  }

  /** Brings the index up to date now (searches call this: read-your-writes). */
  catchUp(): void {
    while (this.step()) {
      /* next batch */
    }
  }

  /** Pauses background indexing (bulk imports); the returned function resumes it. */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (!released) this.holds--;
      released = true;
    };
  }

  /** Follows the change log in the background, a batch per tick so requests interleave. */
  start(intervalMs = 250): void {
    const tick = () => {
      if (this.running || this.holds > 0) return;
      this.running = true;
      const loop = () => {
        try {
          if (this.timer !== null && this.holds === 0 && this.step()) return void setImmediate(loop);
        } catch (e) {
          console.error('[odr] search indexer:', e);
        }
        this.running = false;
      };
      loop();
    };
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** User input → an FTS5 query: every word must appear, each as a prefix; no operators leak in. */
export function ftsQuery(input: string): string | null {
  const words = input.normalize('NFKC').match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) return null;
  return words
    .slice(0, 16)
    .map((w) => `"${w.replace(/"/g, '""')}"*`)
    .join(' AND ');
}
