import type { Ctx } from '../context.js';
import { badRequest } from '../errors.js';
import { canViewDatatype, seesAll } from '../permissions.js';
import type { RecordRow } from '../../store/rows.js';
import { recordLists, type TableArgs, type TableSort } from '../../store/recordLists.js';
import { changeLogStore } from '../../store/changeLog.js';
import type { DatatypeInfo, Schema } from '../schemaCache.js';
import type { User } from '../users.js';
import type { SearchIndex } from './searchIndex.js';
import type { DatasetSummary } from '../../../../shared/schemas/local.js';
import type { ViewFilter } from '../../../../shared/schemas/view.js';
import { termsWhere } from './recordSearch.js';
import { filterTerms } from './viewFilters.js';
import { datasetHidden } from '../rights.js';

/** What the table reads (the Domain provides it; named here so domain.ts and this file do not import each other). */
export interface TableView {
  ctx: Pick<Ctx, 'db' | 'config'>;
  now(): string;
  schema(): Schema;
}
type Domain = TableView;

export interface TableQuery {
  q?: string;
  /** A field uuid, or `_id` (internal id), `_updated`, `_created`, `_public`. */
  sort?: string;
  dir?: 'asc' | 'desc';
  /** Per-field filters (all hold), compiled by the search engine's term compiler. */
  filters?: ViewFilter[];
  offset: number;
  limit: number;
  /** `capped`: count matches only up to the cap (the answer says when its total is a lower bound). Default exact. */
  count?: 'exact' | 'capped';
}

/** A page of the table: `capped` means `total` is a lower bound (the count stopped there). */
export interface TableRids {
  total: number;
  capped: boolean;
  rids: number[];
}

const SPECIAL: Record<string, TableSort> = {
  _id: { kind: 'column', column: 'internal_id' },
  _updated: { kind: 'column', column: 'update_date' },
  _created: { kind: 'column', column: 'create_date' },
  _public: { kind: 'column', column: 'public_date' },
};
const CACHE = 8;
/** Counts are 8 bytes each: many more are kept than id lists. */
const COUNTS_KEPT = 256;
/** Pages ending past this many rows sort the whole list (kept for the next pages). */
const WALK_MAX = 2_000;
/** Results up to this many rows sort the whole list: cheap, and an index walk could read far more rows than it keeps. */
const SORT_MAX = 5_000;

/**
 * The UI's record table: a dataset's top-level records filtered by the full-text index and the
 * per-field filters (the ODR search engine's terms), sorted by a column. The ordered id list is computed once per query and data generation and
 * kept (a few, least recently used), so scrolling through 100k sorted rows pages cheaply.
 */
export class RecordTable {
  private readonly cache = new Map<string, number[]>();
  /** Row counts per query without its order, kept like `cache`; `exact: false` for a capped count. */
  private readonly counts = new Map<string, { n: number; exact: boolean }>();

  private readonly limits: { walkMax: number; sortMax: number };

  constructor(
    private readonly d: Domain,
    private readonly search: SearchIndex,
    /** Tests lower them to take the index walk or stop the count on small data. */
    limits: Partial<RecordTable['limits']> = {},
  ) {
    this.limits = { walkMax: WALK_MAX, sortMax: SORT_MAX, ...limits };
  }

  /** Uuids of rids `queryRids` gave, in their order. */
  uuidsOf(rids: number[]): string[] {
    return recordLists(this.d.ctx.db).uuidsOf(rids);
  }

  /** Sortable fields are those shared/fieldTypes.ts marks so: the UI offers exactly these. */
  private sortFor(dt: DatatypeInfo, sort: string | undefined): TableSort {
    if (!sort) return { kind: 'rid' };
    if (SPECIAL[sort]) return SPECIAL[sort];
    const f = dt.fieldsByUuid.get(sort) ?? dt.fields.find((x) => x.templateFieldUuid === sort);
    if (!f) throw badRequest(`sort: ${sort} is not a field of dataset ${dt.uuid}`);
    if (!f.type.sortable) throw badRequest(`sort: ${f.fieldtype} fields are not sortable`);
    if (f.type.storage === 'options') return { kind: 'option', fieldId: f.id };
    return { kind: 'value', fieldId: f.id, numeric: f.type.storage === 'integer' || f.type.storage === 'decimal' };
  }

  query(user: User, dt: DatatypeInfo, q: TableQuery): { total: number; capped: boolean; rows: RecordRow[] } {
    const { total, capped, rids } = this.queryRids(user, dt, q);
    return { total, capped, rows: recordLists(this.d.ctx.db).byRids(rids) };
  }

  /** `query` without the rows: the rids of the page (callers that need uuids or positions, not 1M rows). */
  queryRids(user: User, dt: DatatypeInfo, q: TableQuery): TableRids {
    if (dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
    const now = this.d.now();
    if (!canViewDatatype(user, dt, now)) throw datasetHidden(dt);
    const admin = seesAll(user, dt);
    const match = q.q ? this.search.matchQuery(q.q) : null;
    const lists = recordLists(this.d.ctx.db);
    const gen = changeLogStore(this.d.ctx.db).lastSeq();
    const terms = filterTerms(dt, q.filters ?? []);
    // A public filter, like a non-admin's visibility, changes with the clock: keyed by the minute.
    const timed = !admin || terms.some((t) => t.kind === 'public');
    const key = JSON.stringify([
      dt.id,
      admin ? 'all' : user.id,
      timed ? now.slice(0, 16) : '',
      match,
      q.filters ?? [],
      q.sort ?? '',
      q.dir ?? 'asc',
      gen,
    ]);
    const args: TableArgs = {
      filter: termsWhere(this.d, terms),
      dt: dt.id,
      user: user.id,
      now,
      scope: admin ? 'all' : 'visible',
      match,
      sort: this.sortFor(dt, q.sort),
      dir: q.dir === 'desc' ? 'DESC' : 'ASC',
    };
    let ids = this.cache.get(key);
    if (ids) {
      this.cache.delete(key);
      this.cache.set(key, ids);
      return { total: ids.length, capped: false, rids: ids.slice(q.offset, q.offset + q.limit) };
    }
    // Near the top of a large result, walk the order's index and stop: sorting every row for
    // one page cost 5 s at 1M records. Small results and deep pages sort the whole list once.
    const { n: total, exact } = this.total(key, admin && !match && !terms.length, args, q.count === 'capped');
    const end = q.offset + q.limit;
    const first = end <= this.limits.walkMax && (!exact || total > this.limits.sortMax) ? lists.tableFirst(args, end) : null;
    // A walk that ends short of the page has seen every row: that is the exact total.
    if (first)
      return first.length < end
        ? { total: first.length, capped: false, rids: first.slice(q.offset) }
        : { total, capped: !exact, rids: first.slice(q.offset) };
    ids = lists.tableOrder(args);
    this.cache.set(key, ids);
    while (this.cache.size > CACHE) this.cache.delete(this.cache.keys().next().value!);
    return { total: ids.length, capped: false, rids: ids.slice(q.offset, end) };
  }

  /**
   * The row count of a query (its order aside): the kept dataset count when nothing filters.
   * `capped`: counting stops past the cap (then `exact` is false and `n` is the cap).
   */
  private total(key: string, whole: boolean, args: TableArgs, capped: boolean): { n: number; exact: boolean } {
    const lists = recordLists(this.d.ctx.db);
    if (whole) return { n: lists.counted(args.dt).n, exact: true };
    // The key without its order (the last three parts: sort, direction, generation) plus the generation.
    const parts = JSON.parse(key) as unknown[];
    const countKey = JSON.stringify([...parts.slice(0, -3), parts.at(-1)]);
    const kept = this.counts.get(countKey);
    if (kept && (kept.exact || capped)) return kept;
    const only = args.match !== null && lists.counted(args.dt).n === lists.allTopCount();
    const cap = this.d.ctx.config.countCap;
    const n = lists.tableCount(args, only, capped ? cap + 1 : undefined);
    const counted = n > cap && capped ? { n: cap, exact: false } : { n, exact: true };
    this.counts.set(countKey, counted);
    while (this.counts.size > COUNTS_KEPT) this.counts.delete(this.counts.keys().next().value!);
    return counted;
  }
}

/** A dataset's child datasets, depth first, from the schema cache (no query). */
function childDatasets(dt: DatatypeInfo, depth = 1): DatasetSummary['children'] {
  return dt.children.flatMap((c) => [{ uuid: c.uuid, name: c.name, depth }, ...childDatasets(c, depth + 1)]);
}

/** The datasets list of the UI: name, record count and last change per visible dataset. */
export function datasetSummaries(d: Domain, user: User): DatasetSummary[] {
  const now = d.now();
  const stats = new Map(
    recordLists(d.ctx.db)
      .summaries()
      .map((s) => [s.id, s]),
  );
  return d
    .schema()
    .topLevel()
    .filter((dt) => !dt.isMaster && canViewDatatype(user, dt, now))
    .map((dt) => ({
      uuid: dt.uuid,
      name: dt.name,
      description: dt.description,
      template_uuid: dt.masterUuid || null,
      metadata_for: dt.metadataForUuid || null,
      records: stats.get(dt.id)?.n ?? 0,
      updated: stats.get(dt.id)?.updated ?? dt.updatedAt,
      children: childDatasets(dt),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
