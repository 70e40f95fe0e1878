import { PRIVATE_DATE } from '../../../shared/dates.js';
import type { Db } from './db.js';
import { shaped } from './prepared.js';
import type { VisibilityFacts } from './visibility.js';

// The ODR search engine's SQL: search terms (parsed from every search key format by
// domain/search/searchKeys.ts) become one statement over the per-field value index and the
// full-text index. The candidates it yields then pass the record-read rule in domain/.

/** What a term needs of a field (domain's FieldInfo has it). */
export interface SearchField {
  id: number;
  datatypeId: number;
  type: { storage: string };
}

/** What compiling needs besides the terms. */
export interface TermContext {
  isTopLevel(datatypeId: number): boolean;
  now: string;
}

export type TextMatch = { mode: 'contains'; text: string } | { mode: 'exact'; text: string } | { mode: 'empty' } | { mode: 'filled' };
export interface Comparison {
  op: '=' | '<' | '>' | '<=' | '>=';
  value: number | string;
}

export type Term =
  | { kind: 'text'; fields: SearchField[]; match: TextMatch }
  /** Numbers compare as numbers, dates as their YYYY-MM-DD text. */
  | { kind: 'compare'; fields: SearchField[]; numeric: boolean; all: Comparison[] }
  | { kind: 'boolean'; fields: SearchField[]; selected: boolean }
  /** Records with any of `any` selected (when given) and none of `none`. */
  | { kind: 'options' | 'tags'; fields: SearchField[]; any: number[]; none: number[] }
  | { kind: 'file'; fields: SearchField[]; has: boolean; name?: string }
  /** Public now, or private (never public, or public only from a later date). */
  | { kind: 'public'; public: boolean };

export interface Compiled {
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

function topsOf(table: string, fields: SearchField[], d: TermContext, where: string, args: unknown[], byField = true): Compiled {
  const allTop = fields.every((f) => d.isTopLevel(f.datatypeId));
  const ids = byField ? fields.map((f) => f.id) : [];
  const conds = [...(byField ? [`v.datafield_id IN (${marks(ids.length)})`] : []), where].join(' AND ');
  const sql = allTop
    ? `SELECT v.record_rid FROM ${table} v WHERE ${conds}`
    : `SELECT c.top_rid FROM ${table} v JOIN records c ON c.rid = v.record_rid WHERE ${conds}`;
  return { sql, args: [...ids, ...args] };
}

/** A term as `r.rid [NOT] IN (…)`, or a condition on the top-level record `r` itself. */
export function compileTerm(d: TermContext, t: Term): Compiled {
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
      // and range over field_values_by_number, whose WHERE term is repeated so it applies: only
      // text that reads as a number (migration 012), as every stored decimal does.
      const decimal = t.numeric && t.fields.some((f) => f.type.storage !== 'integer');
      const col = decimal ? 'CAST(v.value AS REAL)' : 'v.value COLLATE NOCASE';
      const kind = decimal ? "typeof(v.value) = 'text' AND v.value GLOB '[0-9.+-]*'" : "v.value IS NOT NULL AND v.value != ''";
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
      return { sql: t.public ? sql : `NOT ${sql}`, args: [d.now] };
    }
  }
}

/** Terms all holding (AND) as one condition on `r` (a top-level record), for other queries over `records r`. */
export function termsWhere(d: TermContext, terms: Term[]): Compiled | null {
  if (!terms.length) return null;
  const parts = terms.map((t) => compileTerm(d, t));
  return { sql: `(${parts.map((p) => p.sql).join(' AND ')})`, args: parts.flatMap((p) => p.args) };
}

/** A top-level record a search found, with what the read rule needs. */
export interface SearchCandidate extends VisibilityFacts {
  rid: number;
  datatype_id: number;
}

export interface SearchQuery {
  datasetIds: number[];
  /** An FTS5 query (searchIndex.ftsQuery), or null. */
  match: string | null;
  terms: Term[];
  merge: 'AND' | 'OR';
}

function searchSql(d: TermContext, q: SearchQuery): Compiled {
  const where: string[] = [`r.parent_rid IS NULL AND r.datatype_id IN (${marks(q.datasetIds.length)})`];
  const args: unknown[] = [...q.datasetIds];
  if (q.match) {
    where.push('r.rid IN (SELECT rowid FROM record_search WHERE record_search MATCH ?)');
    args.push(q.match);
  }
  const terms = q.terms.map((t) => compileTerm(d, t));
  if (terms.length) {
    where.push(`(${terms.map((t) => t.sql).join(q.merge === 'OR' ? ' OR ' : ' AND ')})`);
    args.push(...terms.flatMap((t) => t.args));
  }
  return {
    sql: `SELECT r.rid, r.datatype_id, r.created_by, r.public_date FROM records r WHERE ${where.join(' AND ')} ORDER BY r.rid`,
    args,
  };
}

/** Running searches: candidates in rid order (iterated, so a caller may stop early), and their plan. */
export const searchStore = (db: Db) => ({
  candidates: (d: TermContext, q: SearchQuery): IterableIterator<SearchCandidate> => {
    const { sql, args } = searchSql(d, q);
    return shaped(db)<unknown[], SearchCandidate>(sql).iterate(...args);
  },
  /** SQLite's plan (EXPLAIN QUERY PLAN details): tests check the indexes a search uses. */
  plan: (d: TermContext, q: SearchQuery): string[] => {
    const { sql, args } = searchSql(d, q);
    return db
      .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...args)
      .map((r) => r.detail);
  },
});
