import type { Statement } from 'better-sqlite3';
import { PRIVATE_DATE } from '../../../../shared/dates.js';
import type { Domain } from '../domain.js';
import { canViewRecord } from '../permissions.js';
import { RECORD_COLUMNS, type RecordRow } from '../../store/rows.js';
import type { DatatypeInfo, FieldInfo } from '../schemaCache.js';
import type { User } from '../users.js';
import { ftsQuery } from './searchIndex.js';

// The ODR search routes' engine. Every search key format (dataset keys, template keys, the
// field list of POST /dataset/{uuid}/search) is parsed into these terms; the terms become one
// SQL statement over the per-field value index and the full-text index, and the candidates
// then pass the same visibility rule as record reads.

export type TextMatch = { mode: 'contains'; text: string } | { mode: 'exact'; text: string } | { mode: 'empty' } | { mode: 'filled' };
export interface Comparison {
  op: '=' | '<' | '>' | '<=' | '>=';
  value: number | string;
}

export type Term =
  | { kind: 'text'; fields: FieldInfo[]; match: TextMatch }
  /** Numbers compare as numbers, dates as their YYYY-MM-DD text. */
  | { kind: 'compare'; fields: FieldInfo[]; numeric: boolean; all: Comparison[] }
  | { kind: 'boolean'; fields: FieldInfo[]; selected: boolean }
  /** Records with any of `any` selected (when given) and none of `none`. */
  | { kind: 'options' | 'tags'; fields: FieldInfo[]; any: number[]; none: number[] }
  | { kind: 'file'; fields: FieldInfo[]; has: boolean; name?: string }
  /** Public now, or private (never public, or public only from a later date). */
  | { kind: 'public'; public: boolean };

export interface Criteria {
  /** Top-level datasets searched. */
  datasets: DatatypeInfo[];
  /** Words every result must contain somewhere (the full-text index). */
  general?: string;
  terms: Term[];
  /** How field terms combine (the dataset key's `merge`). */
  merge: 'AND' | 'OR';
}

interface Compiled {
  sql: string;
  args: unknown[];
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/**
 * A subquery yielding the top-level record ids whose tree has a row matching `where`.
 * `byField: false` for selections: option and tag ids belong to one field already, and leaving
 * the field out lets the option/tag index answer alone.
 */
type Terms = Pick<Domain, 'schema' | 'now'>;

function topsOf(table: string, fields: FieldInfo[], d: Terms, where: string, args: unknown[], byField = true): Compiled {
  const schema = d.schema();
  const allTop = fields.every((f) => schema.datatypes.get(f.datatypeId)?.parentId === null);
  const ids = byField ? fields.map((f) => f.id) : [];
  const conds = [...(byField ? [`v.datafield_id IN (${marks(ids.length)})`] : []), where].join(' AND ');
  const sql = allTop
    ? `SELECT v.record_rid FROM ${table} v WHERE ${conds}`
    : `SELECT c.top_rid FROM ${table} v JOIN records c ON c.rid = v.record_rid WHERE ${conds}`;
  return { sql, args: [...ids, ...args] };
}

/** A term as `r.rid [NOT] IN (…)`, or a condition on the top-level record `r` itself. */
function compile(d: Terms, t: Term): Compiled {
  const inner = (c: Compiled, negate = false): Compiled => ({ sql: `r.rid ${negate ? 'NOT IN' : 'IN'} (${c.sql})`, args: c.args });
  switch (t.kind) {
    case 'text': {
      const m = t.match;
      if (m.mode === 'empty' || m.mode === 'filled') {
        return inner(topsOf('field_values', t.fields, d, "v.value IS NOT NULL AND v.value != ''", []), m.mode === 'empty');
      }
      if (m.mode === 'exact') return inner(topsOf('field_values', t.fields, d, 'v.value = ? COLLATE NOCASE', [m.text]));
      return inner(topsOf('field_values', t.fields, d, "v.value LIKE ? ESCAPE '\\'", [`%${escapeLike(m.text)}%`]));
    }
    case 'compare': {
      // Integers are stored as numbers and range over field_values_by_field; decimals are text
      // and range over field_values_by_number, whose WHERE term is repeated so it applies.
      const decimal = t.numeric && t.fields.some((f) => f.type.storage !== 'integer');
      const col = decimal ? 'CAST(v.value AS REAL)' : 'v.value COLLATE NOCASE';
      const kind = decimal ? "typeof(v.value) = 'text' AND v.value != ''" : "v.value IS NOT NULL AND v.value != ''";
      const where = [kind, ...t.all.map((c) => `${col} ${c.op} ?`)].join(' AND ');
      return inner(
        topsOf(
          'field_values',
          t.fields,
          d,
          where,
          t.all.map((c) => c.value),
        ),
      );
    }
    case 'boolean': {
      const on = topsOf('field_values', t.fields, d, 'v.value = 1', []);
      return inner(on, !t.selected);
    }
    case 'options':
    case 'tags': {
      const table = t.kind === 'options' ? 'option_selections' : 'tag_selections';
      const col = t.kind === 'options' ? 'option_id' : 'tag_id';
      const parts: Compiled[] = [];
      if (t.any.length) parts.push(inner(topsOf(table, t.fields, d, `v.${col} IN (${marks(t.any.length)})`, t.any, false)));
      if (t.none.length) parts.push(inner(topsOf(table, t.fields, d, `v.${col} IN (${marks(t.none.length)})`, t.none, false), true));
      if (!parts.length) return { sql: '1', args: [] };
      return { sql: `(${parts.map((p) => p.sql).join(' AND ')})`, args: parts.flatMap((p) => p.args) };
    }
    case 'file': {
      const where = t.name === undefined ? 'v.parent_rid IS NULL' : "v.parent_rid IS NULL AND v.original_name LIKE ? ESCAPE '\\'";
      return inner(topsOf('files', t.fields, d, where, t.name === undefined ? [] : [`%${escapeLike(t.name)}%`]), !t.has);
    }
    case 'public': {
      const sql = `(r.public_date != '${PRIVATE_DATE}' AND r.public_date <= ?)`;
      return { sql: t.public ? sql : `NOT ${sql}`, args: [d.now()] };
    }
  }
}

/** Terms all holding (AND) as one condition on `r` (a top-level record), for other queries over `records r`. */
export function termsWhere(d: Terms, terms: Term[]): Compiled | null {
  if (!terms.length) return null;
  const parts = terms.map((t) => compile(d, t));
  return { sql: `(${parts.map((p) => p.sql).join(' AND ')})`, args: parts.flatMap((p) => p.args) };
}

interface Candidate {
  rid: number;
  datatype_id: number;
  created_by: number | null;
  public_date: string;
}

const STMT_CACHE = 64;

export class RecordSearch {
  private readonly stmts = new Map<string, Statement>();

  constructor(private readonly d: Domain) {}

  private prepare(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.d.ctx.db.prepare(sql);
      this.stmts.set(sql, s);
      if (this.stmts.size > STMT_CACHE) this.stmts.delete(this.stmts.keys().next().value!);
    }
    return s;
  }

  /**
   * Ids (rid) of the matching top-level records the user may read, in database order; with
   * `enough`, stops once that many are found (pages that need no total).
   */
  run(user: User, c: Criteria, enough = Infinity): number[] {
    if (c.datasets.length === 0) return [];
    const { sql, args } = this.compiled(c);
    const out: number[] = [];
    // Taken before iterating: the connection runs nothing else while a statement is open.
    const canRead = this.readable(user);
    for (const row of this.prepare(sql).iterate(...args) as IterableIterator<Candidate>) {
      if (out.length >= enough) break;
      if (canRead(row)) out.push(row.rid);
    }
    return out;
  }

  /** SQLite's plan for a search (EXPLAIN QUERY PLAN details): tests check the indexes it uses. */
  plan(c: Criteria): string[] {
    const { sql, args } = this.compiled(c);
    return (this.d.ctx.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail);
  }

  private compiled(c: Criteria): Compiled {
    const where: string[] = [`r.parent_rid IS NULL AND r.datatype_id IN (${marks(c.datasets.length)})`];
    const args: unknown[] = c.datasets.map((dt) => dt.id);
    const general = c.general ? ftsQuery(c.general) : null;
    if (general) {
      this.d.search.catchUp();
      where.push('r.rid IN (SELECT rowid FROM record_search WHERE record_search MATCH ?)');
      args.push(general);
    }
    const terms = c.terms.map((t) => compile(this.d, t));
    if (terms.length) {
      where.push(`(${terms.map((t) => t.sql).join(c.merge === 'OR' ? ' OR ' : ' AND ')})`);
      args.push(...terms.flatMap((t) => t.args));
    }
    const sql = `SELECT r.rid, r.datatype_id, r.created_by, r.public_date FROM records r WHERE ${where.join(' AND ')} ORDER BY r.rid`;
    return { sql, args };
  }

  /** The record-read rule (permissions.canViewRecord) for candidate top-level rows. */
  readable(user: User): (row: Candidate) => boolean {
    const now = this.d.now();
    const schema = this.d.schema();
    return (r) => {
      const dt = schema.datatypes.get(r.datatype_id);
      return dt !== undefined && canViewRecord(user, dt, r, r, now);
    };
  }

  /** Full rows of a page of rids, in the given order. */
  rows(rids: number[]): RecordRow[] {
    if (rids.length === 0) return [];
    const rows = this.prepare(`SELECT ${RECORD_COLUMNS} FROM records WHERE rid IN (SELECT value FROM json_each(?))`).all(
      JSON.stringify(rids),
    ) as RecordRow[];
    const byRid = new Map(rows.map((r) => [r.rid, r]));
    return rids.map((rid) => byRid.get(rid)!).filter(Boolean);
  }
}
