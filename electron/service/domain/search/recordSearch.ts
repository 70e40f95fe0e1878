import type { Domain } from '../domain.js';
import { topReadable } from '../access.js';
import type { RecordRow } from '../../store/rows.js';
import { recordLists } from '../../store/recordLists.js';
import {
  searchStore,
  termsWhere as compileTerms,
  type Compiled,
  type SearchCandidate,
  type SearchQuery,
  type Term,
  type TermContext,
} from '../../store/searchQuery.js';
import type { DatatypeInfo } from '../schemaCache.js';
import type { User } from '../users.js';

export type { Comparison, Term, TextMatch } from '../../store/searchQuery.js';

// The ODR search routes' engine. Every search key format (dataset keys, template keys, the
// field list of POST /dataset/{uuid}/search) is parsed into terms; store/searchQuery.ts turns
// them into one SQL statement, and the candidates then pass the same visibility rule as record
// reads.

export interface Criteria {
  /** Top-level datasets searched. */
  datasets: DatatypeInfo[];
  /** Words every result must contain somewhere (the full-text index). */
  general?: string;
  terms: Term[];
  /** How field terms combine (the dataset key's `merge`). */
  merge: 'AND' | 'OR';
}

type Terms = Pick<Domain, 'schema' | 'now'>;

/**
 * The probe before a set search: a page of up to PROBE_MAX_PAGE results is first looked for
 * among the dataset's first 10 records per result wanted (found when ≥ 10 % of records match).
 * A sparser match pays those seeks on top (~1 ms for 1,000 records at 100k) and then reads the
 * sets as before. Equality lookups (an exact text, a number) are index seeks already: no probe.
 */
const PROBE_RECORDS_PER_RESULT = 10;
const PROBE_MAX_PAGE = 200;

function termContext(d: Terms): TermContext {
  const schema = d.schema();
  return { isTopLevel: (id) => schema.datatypes.get(id)?.parentId === null, now: d.now() };
}

/** Terms all holding (AND) as one condition on `r` (a top-level record), for other queries over `records r`. */
export function termsWhere(d: Terms, terms: Term[]): Compiled | null {
  return compileTerms(termContext(d), terms);
}

/** A term whose set is an equality seek in a value index. */
const isSeek = (t: Term) => (t.kind === 'text' && t.match.mode === 'exact') || (t.kind === 'compare' && t.all.every((c) => c.op === '='));

export class RecordSearch {
  constructor(private readonly d: Domain) {}

  /**
   * Ids (rid) of the matching top-level records the user may read, in database order; with
   * `enough`, stops once that many are found (pages that need no total).
   */
  run(user: User, c: Criteria, enough = Infinity): number[] {
    if (c.datasets.length === 0) return [];
    const q = this.query(c);
    const store = searchStore(this.d.ctx.db);
    const terms = termContext(this.d);
    // Taken before iterating: the connection runs nothing else while a statement is open.
    const canRead = this.readable(user);
    const take = (rows: Iterable<SearchCandidate>) => {
      const out: number[] = [];
      for (const row of rows) {
        if (out.length >= enough) break;
        if (canRead(row)) out.push(row.rid);
      }
      return out;
    };
    const probe = this.probeSize(q, enough);
    if (probe) {
      // A page of a common match lies among the first records: testing those one by one costs a
      // few seeks each, where the set form reads every value of the field first. Every record
      // before the last one probed was tested, so a full page found here is the search's own.
      const first = take(store.firstCandidates(terms, q, probe));
      if (first.length >= enough) return first;
    }
    return take(store.candidates(terms, q));
  }

  /** Top-level records to test one by one before reading the terms' whole sets; 0: none. */
  private probeSize(q: SearchQuery, enough: number): number {
    if (q.datasetIds.length !== 1 || enough > PROBE_MAX_PAGE || q.terms.every(isSeek)) return 0;
    return enough * PROBE_RECORDS_PER_RESULT;
  }

  /** SQLite's plan for a search (EXPLAIN QUERY PLAN details): tests check the indexes it uses. */
  plan(c: Criteria, enough = Infinity): string[] {
    const q = this.query(c);
    return searchStore(this.d.ctx.db).plan(termContext(this.d), q, this.probeSize(q, enough) || undefined);
  }

  private query(c: Criteria): SearchQuery {
    const match = c.general ? this.d.search.matchQuery(c.general) : null;
    return { datasetIds: c.datasets.map((dt) => dt.id), match, terms: c.terms, merge: c.merge };
  }

  /** The record-read rule (permissions.canViewRecord) for candidate top-level rows. */
  readable(user: User): (row: SearchCandidate) => boolean {
    return topReadable(this.d.schema(), user, this.d.now());
  }

  /** Full rows of a page of rids, in the given order. */
  rows(rids: number[]): RecordRow[] {
    return recordLists(this.d.ctx.db).byRids(rids);
  }
}
