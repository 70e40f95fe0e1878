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
 * How a term is tested on the top-level record `r`. 'set': `r.rid IN (subquery)`, the subquery
 * read once (one pass over the field's values, however many results are wanted). 'each': a
 * correlated `EXISTS` per record, a few index seeks each: far cheaper when the first page of a
 * common match lies among the first records (store/searchQuery.ts `candidates` with a probe).
 */
export type TermTest = 'set' | 'each';

/** The rows of `table` matching `where` (on `v`), and whether all their fields are top-level. */
interface Rows {
  table: string;
  conds: string;
  args: unknown[];
  allTop: boolean;
}

/**
 * `byField: false` for selections: option and tag ids belong to one field already, and leaving
 * the field out lets the option/tag index answer alone.
 */
function rowsOf(table: string, fields: SearchField[], d: TermContext, where: string, args: unknown[], byField = true): Rows {
  const ids = byField ? fields.map((f) => f.id) : [];
  const conds = [...(byField ? [`v.datafield_id IN (${marks(ids.length)})`] : []), where].join(' AND ');
  return { table, conds, args: [...ids, ...args], allTop: fields.every((f) => d.isTopLevel(f.datatypeId)) };
}

/** `r` has (or, negated, has no) record in its tree with a row among `rows`. */
function hasRow(rows: Rows, how: TermTest, negate = false): Compiled {
  const { table, conds, args, allTop } = rows;
  if (how === 'set') {
    const sql = allTop
      ? `SELECT v.record_rid FROM ${table} v WHERE ${conds}`
      : `SELECT c.top_rid FROM ${table} v JOIN records c ON c.rid = v.record_rid WHERE ${conds}`;
    return { sql: `r.rid ${negate ? 'NOT IN' : 'IN'} (${sql})`, args };
  }
  // CROSS JOIN keeps the tree's records outermost: left to itself the planner scans the
  // field's whole value index for every record.
  const sql = allTop
    ? `SELECT 1 FROM ${table} v WHERE v.record_rid = r.rid AND ${conds}`
    : `SELECT 1 FROM records c CROSS JOIN ${table} v ON v.record_rid = c.rid WHERE c.top_rid = r.rid AND ${conds}`;
  return { sql: `${negate ? 'NOT ' : ''}EXISTS (${sql})`, args };
}

/** A term as a condition on the top-level record `r`. */
export function compileTerm(d: TermContext, t: Term, how: TermTest = 'set'): Compiled {
  const has = (rows: Rows, negate = false) => hasRow(rows, how, negate);
  switch (t.kind) {
    case 'text': {
      const m = t.match;
      if (m.mode === 'empty' || m.mode === 'filled') {
        return has(rowsOf('field_values', t.fields, d, "v.value IS NOT NULL AND v.value != ''", []), m.mode === 'empty');
      }
      if (m.mode === 'exact') return has(rowsOf('field_values', t.fields, d, 'v.value = ? COLLATE NOCASE', [m.text]));
      return has(rowsOf('field_values', t.fields, d, "v.value LIKE ? ESCAPE '\\'", [`%${escapeLike(m.text)}%`]));
    }
    case 'compare': {
      // Integers are stored as numbers and range over field_values_by_field; decimals are text
      // and range over field_values_by_number, whose WHERE term is repeated so it applies: only
      // text that reads as a number (migration 012), as every stored decimal does.
      const decimal = t.numeric && t.fields.some((f) => f.type.storage !== 'integer');
      const col = decimal ? 'CAST(v.value AS REAL)' : 'v.value COLLATE NOCASE';
      const kind = decimal ? "typeof(v.value) = 'text' AND v.value GLOB '[0-9.+-]*'" : "v.value IS NOT NULL AND v.value != ''";
      const where = [kind, ...t.all.map((c) => `${col} ${c.op} ?`)].join(' AND ');
      return has(
        rowsOf(
          'field_values',
          t.fields,
          d,
          where,
          t.all.map((c) => c.value),
        ),
      );
    }
    case 'boolean':
      return has(rowsOf('field_values', t.fields, d, 'v.value = 1', []), !t.selected);
    case 'options':
    case 'tags': {
      const table = t.kind === 'options' ? 'option_selections' : 'tag_selections';
      const col = t.kind === 'options' ? 'option_id' : 'tag_id';
      const parts: Compiled[] = [];
      if (t.any.length) parts.push(has(rowsOf(table, t.fields, d, `v.${col} IN (${marks(t.any.length)})`, t.any, false)));
      if (t.none.length) parts.push(has(rowsOf(table, t.fields, d, `v.${col} IN (${marks(t.none.length)})`, t.none, false), true));
      if (!parts.length) return { sql: '1', args: [] };
      return { sql: `(${parts.map((p) => p.sql).join(' AND ')})`, args: parts.flatMap((p) => p.args) };
    }
    case 'file': {
      const where = t.name === undefined ? 'v.parent_rid IS NULL' : "v.parent_rid IS NULL AND v.original_name LIKE ? ESCAPE '\\'";
      return has(rowsOf('files', t.fields, d, where, t.name === undefined ? [] : [`%${escapeLike(t.name)}%`]), !t.has);
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

/**
 * The search as one statement. With `firstRecords`, only that many of the (single) dataset's
 * first top-level records, in rid order, are tested, each term per record ('each').
 */
function searchSql(d: TermContext, q: SearchQuery, firstRecords?: number): Compiled {
  const cols = 'rid, datatype_id, created_by, public_date';
  const where: string[] = [];
  const args: unknown[] = [];
  let from: string;
  if (firstRecords === undefined) {
    from = 'records r';
    where.push(`r.parent_rid IS NULL AND r.datatype_id IN (${marks(q.datasetIds.length)})`);
    args.push(...q.datasetIds);
  } else {
    from = `(SELECT ${cols} FROM records WHERE parent_rid IS NULL AND datatype_id = ? ORDER BY rid LIMIT ?) r`;
    args.push(q.datasetIds[0], firstRecords);
  }
  if (q.match) {
    where.push('r.rid IN (SELECT rowid FROM record_search WHERE record_search MATCH ?)');
    args.push(q.match);
  }
  const terms = q.terms.map((t) => compileTerm(d, t, firstRecords === undefined ? 'set' : 'each'));
  if (terms.length) {
    where.push(`(${terms.map((t) => t.sql).join(q.merge === 'OR' ? ' OR ' : ' AND ')})`);
    args.push(...terms.flatMap((t) => t.args));
  }
  return {
    sql: `SELECT r.rid, r.datatype_id, r.created_by, r.public_date FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY r.rid`,
    args,
  };
}

/** Running searches: candidates in rid order (iterated, so a caller may stop early), and their plan. */
export const searchStore = (db: Db) => ({
  candidates: (d: TermContext, q: SearchQuery): IterableIterator<SearchCandidate> => {
    const { sql, args } = searchSql(d, q);
    return shaped(db)<unknown[], SearchCandidate>(sql).iterate(...args);
  },
  /**
   * The candidates among a single dataset's first `records` top-level records, in rid order: a
   * prefix of what `candidates` yields, found without reading the terms' whole value sets.
   */
  firstCandidates: (d: TermContext, q: SearchQuery, records: number): IterableIterator<SearchCandidate> => {
    if (q.datasetIds.length !== 1) throw new Error('firstCandidates searches one dataset');
    const { sql, args } = searchSql(d, q, records);
    return shaped(db)<unknown[], SearchCandidate>(sql).iterate(...args);
  },
  /** SQLite's plan (EXPLAIN QUERY PLAN details): tests check the indexes a search uses. */
  plan: (d: TermContext, q: SearchQuery, firstRecords?: number): string[] => {
    const { sql, args } = searchSql(d, q, firstRecords);
    return db
      .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...args)
      .map((r) => r.detail);
  },
});
