import type { Db } from './db.js';
import { perConnection, shaped } from './prepared.js';
import { RECORD_COLUMNS, type RecordRow } from './rows.js';
import { rowVisibleSql, type VisibilityFacts } from './visibility.js';

/** `all`: the viewer administers the dataset; `visible`: only rows the row rule lets them read. */
export type ListScope = 'all' | 'visible';

export interface ListArgs {
  dt: number;
  user: number;
  now: string;
}

export interface IdRow {
  rid: number;
  internal_id: number;
  uuid: string;
  name: string | number | null;
}

/** How the record table orders: a column of records, a scalar field's value, or a single option's name. */
export type TableSort =
  | { kind: 'rid' }
  | { kind: 'column'; column: 'internal_id' | 'update_date' | 'create_date' | 'public_date' }
  | { kind: 'value'; fieldId: number; numeric: boolean }
  | { kind: 'option'; fieldId: number };

export interface TableArgs extends ListArgs {
  scope: ListScope;
  /** An FTS5 query, or null for no text filter. */
  match: string | null;
  sort: TableSort;
  dir: 'ASC' | 'DESC';
  /** A condition on `r` with positional arguments (the search engine's compiled terms), or null. */
  filter: { sql: string; args: unknown[] } | null;
}

const COLUMNS = RECORD_COLUMNS.split(', ')
  .map((c) => `r.${c}`)
  .join(', ');

function orderOf(sort: TableSort): { join: string; order: { sql: string; nulls?: boolean }[]; fieldId?: number } {
  switch (sort.kind) {
    case 'rid':
      return { join: '', order: [{ sql: 'r.rid' }] };
    case 'column':
      return { join: '', order: [{ sql: `r.${sort.column}` }] };
    case 'value':
      return {
        join: 'LEFT JOIN field_values v ON v.record_rid = r.rid AND v.datafield_id = @sortField',
        order: [
          { sql: "(v.value IS NULL OR v.value = '')", nulls: true },
          { sql: sort.numeric ? 'CAST(v.value AS REAL)' : "NULLIF(v.value, '') COLLATE NOCASE" },
        ],
        fieldId: sort.fieldId,
      };
    case 'option': {
      const first =
        '(SELECT MIN(o.name) FROM option_selections s JOIN radio_options o ON o.id = s.option_id WHERE s.record_rid = r.rid AND s.datafield_id = @sortField)';
      return { join: '', order: [{ sql: `${first} IS NULL`, nulls: true }, { sql: first }], fieldId: sort.fieldId };
    }
  }
}

/** The record table's condition on `r`: the dataset's top-level records the viewer may read, matching. */
function tableWhere(a: TableArgs, ftsDriven = false): string {
  const visible = a.scope === 'all' ? '' : `AND ${rowVisibleSql('r')}`;
  const match = !a.match
    ? ''
    : ftsDriven
      ? 'AND s.record_search MATCH @match'
      : 'AND r.rid IN (SELECT rowid FROM record_search WHERE record_search MATCH @match)';
  const terms = a.filter ? `AND ${a.filter.sql}` : '';
  return `r.datatype_id = @dt AND r.parent_rid IS NULL ${visible} ${match} ${terms}`;
}

/**
 * The full-text index drives (its matches stream in rowid order, one records probe each): for
 * counts and rid orders of a text search. `IN (SELECT rowid …)` collects every match first.
 */
const FTS_FROM = 'record_search s CROSS JOIN records r ON r.rid = s.rowid';

/** The terms' `?` bind in order; the named parameters from the object. */
function tableParams(a: TableArgs, fieldId?: number): unknown[] {
  return [
    ...(a.filter?.args ?? []),
    { dt: a.dt, user: a.user, now: a.now, match: a.match, ...(fieldId === undefined ? {} : { sortField: fieldId }) },
  ];
}

/** Top-level records of a dataset: pages, id lists, counts, the UI table's order, summaries. */
export const recordLists = perConnection((db: Db) => {
  const base = (filter: string) => `FROM records r WHERE r.datatype_id = @dt AND r.parent_rid IS NULL ${filter}`;
  const modified = 'AND (@since IS NULL OR r.update_date >= @since OR r.create_date >= @since)';
  type PageArgs = ListArgs & { limit: number; offset: number };
  type IdArgs = ListArgs & { since: string | null; nameField: number };
  /** `after`: only rids above it (0: from the first), so a long list is read a page at a time without OFFSET. */
  type IdPageArgs = IdArgs & { after: number; limit: number; offset: number };
  const make = (filter: string) => ({
    page: db.prepare<[PageArgs], RecordRow>(`SELECT ${COLUMNS} ${base(filter)} ORDER BY r.rid LIMIT @limit OFFSET @offset`),
    ids: db.prepare<[IdPageArgs], IdRow>(`SELECT r.rid, r.internal_id, r.uuid, v.value AS name
                     FROM records r LEFT JOIN field_values v ON v.record_rid = r.rid AND v.datafield_id = @nameField
                     WHERE r.datatype_id = @dt AND r.parent_rid IS NULL AND r.rid > @after ${filter} ${modified}
                     ORDER BY r.rid LIMIT @limit OFFSET @offset`),
    count: db.prepare<[IdArgs], number>(`SELECT COUNT(*) ${base(filter)} ${modified}`).pluck(),
  });
  const s: Record<ListScope, ReturnType<typeof make>> = { all: make(''), visible: make(`AND ${rowVisibleSql('r')}`) };
  // From a known rid on: the OFFSET left is small however deep the page (RecordLists.page).
  const pageFrom = db.prepare<[PageArgs & { from: number }], RecordRow>(
    `SELECT ${COLUMNS} ${base('AND r.rid >= @from')} ORDER BY r.rid LIMIT @limit OFFSET @offset`,
  );
  const topRids = db.prepare<[number], number>('SELECT rid FROM records WHERE datatype_id = ? AND parent_rid IS NULL ORDER BY rid').pluck();
  const uuidsByRids = db.prepare<[string], { rid: number; uuid: string }>(
    'SELECT rid, uuid FROM records WHERE rid IN (SELECT value FROM json_each(?))',
  );
  const byRids = db.prepare<[string], RecordRow>(`SELECT ${RECORD_COLUMNS} FROM records WHERE rid IN (SELECT value FROM json_each(?))`);
  // Per top-level dataset: its kept count (migration 014) and its last change: one
  // records_top_by_update probe, or a delete's or restore's stamp when later (migration 029).
  // A dataset whose records are all deleted still shows when that was.
  const summaries = db.prepare<[], { id: number; n: number; updated: string | null }>(
    `SELECT c.datatype_id AS id, c.n, NULLIF(max(coalesce(c.changed_at, ''), coalesce(
       (SELECT MAX(r.update_date) FROM records r WHERE r.datatype_id = c.datatype_id AND r.parent_rid IS NULL), '')), '') AS updated
     FROM dataset_counts c JOIN datatypes d ON d.id = c.datatype_id WHERE d.parent_id IS NULL`,
  );
  const allTop = db.prepare<[], number>('SELECT COALESCE(SUM(n), 0) FROM dataset_counts').pluck();
  const counted = db.prepare<[number], { n: number; gen: number }>('SELECT n, gen FROM dataset_counts WHERE datatype_id = ?');
  const topUuids = db.prepare<[number], string>('SELECT uuid FROM records WHERE datatype_id = ? AND parent_rid IS NULL').pluck();
  const changedTops = db.prepare<[number, string, string], VisibilityFacts & { rid: number; datatype_id: number }>(
    `SELECT rid, datatype_id, created_by, public_date FROM records
     WHERE datatype_id = ? AND parent_rid IS NULL AND (update_date >= ? OR create_date >= ?) ORDER BY rid`,
  );
  return {
    /** Top-level records of a dataset created or changed at or after `since`, with what the read rule needs. */
    changedTops: (dt: number, since: string) => changedTops.all(dt, since, since),
    /** Uuids of every top-level record of a dataset. */
    topUuids: (dt: number) => topUuids.all(dt),
    page: (scope: ListScope, a: PageArgs) => s[scope].page.all(a),
    /** Every top-level record's page of `all`, starting at rid `from` (a rid of the dataset's, or 0). */
    pageFrom: (a: PageArgs & { from: number }) => pageFrom.all(a),
    /** Every `step`-th top-level rid of a dataset in rid order, from the first: one index walk. */
    everyNth: (dt: number, step: number): number[] => {
      const out: number[] = [];
      let i = 0;
      for (const rid of topRids.iterate(dt)) if (i++ % step === 0) out.push(rid);
      return out;
    },
    ids: (scope: ListScope, a: IdArgs & { after: number; limit: number; offset: number }) => s[scope].ids.all(a),
    count: (scope: ListScope, a: IdArgs) => s[scope].count.get(a) ?? 0,
    /** Full rows of the given rids, in that order (missing ones left out). */
    byRids: (rids: number[]): RecordRow[] => {
      if (rids.length === 0) return [];
      const byRid = new Map(byRids.all(JSON.stringify(rids)).map((r) => [r.rid, r]));
      return rids.map((rid) => byRid.get(rid)).filter((r): r is RecordRow => r !== undefined);
    },
    /** Uuids of the given rids, in that order (missing ones left out). */
    uuidsOf: (rids: number[]): string[] => {
      if (rids.length === 0) return [];
      const byRid = new Map(uuidsByRids.all(JSON.stringify(rids)).map((r) => [r.rid, r.uuid]));
      return rids.map((rid) => byRid.get(rid)).filter((u): u is string => u !== undefined);
    },
    /** The record table: rids of the dataset's top-level records, filtered and ordered. */
    tableOrder: (a: TableArgs): number[] => {
      const { join, order, fieldId } = orderOf(a.sort);
      const orderSql = order.map((o) => (o.nulls ? o.sql : `${o.sql} ${a.dir}`)).join(', ');
      const sql =
        a.match && a.sort.kind === 'rid'
          ? `SELECT r.rid FROM ${FTS_FROM} WHERE ${tableWhere(a, true)} ORDER BY s.rowid ${a.dir}`
          : `SELECT r.rid FROM records r ${join} WHERE ${tableWhere(a)} ORDER BY ${orderSql}, r.rid ${a.dir}`;
      return shaped(db)<unknown[], number>(sql)
        .pluck()
        .all(...tableParams(a, fieldId));
    },
    /**
     * How many rows `tableOrder` would give (its order aside), or at most `upTo`. `onlyDataset`: the caller knows
     * every top-level record belongs to this dataset, so an admin's text search is the full-text
     * index's count alone (no records probe per match).
     */
    tableCount: (a: TableArgs, onlyDataset = false, upTo?: number): number => {
      // The matched rows' FROM and WHERE: counted whole, or as rows under a LIMIT.
      const from =
        a.match && onlyDataset && a.scope === 'all' && !a.filter
          ? 'FROM record_search WHERE record_search MATCH @match'
          : a.match
            ? `FROM ${FTS_FROM} WHERE ${tableWhere(a, true)}`
            : `FROM records r WHERE ${tableWhere(a)}`;
      // A LIMIT inside the count stops the scan (FTS5 streams its matches): cost ∝ upTo, not matches.
      const sql =
        upTo === undefined ? `SELECT COUNT(*) ${from}` : `SELECT COUNT(*) FROM (SELECT 1 ${from} LIMIT ${Math.max(0, Math.floor(upTo))})`;
      return shaped(db)<unknown[], number>(sql)
        .pluck()
        .get(...tableParams(a))!;
    },
    /**
     * The first `n` rids of `tableOrder`, by walking an index already in that order and stopping
     * (no sort of every row): ordered by rid, update date, or a text field's value (its
     * field_values_by_field entries, NOCASE, then the records without a value by rid). Null when
     * the order has no such index (the caller sorts the whole list).
     */
    tableFirst: (a: TableArgs, n: number): number[] | null => {
      const walk = (sql: string, fieldId?: number, limit = n) =>
        shaped(db)<unknown[], number>(`${sql} LIMIT ${Math.max(0, Math.floor(limit))}`)
          .pluck()
          .all(...tableParams(a, fieldId));
      const where = tableWhere(a);
      const sort = a.sort;
      if (sort.kind === 'rid') {
        return walk(
          a.match
            ? `SELECT r.rid FROM ${FTS_FROM} WHERE ${tableWhere(a, true)} ORDER BY s.rowid ${a.dir}`
            : `SELECT r.rid FROM records r WHERE ${where} ORDER BY r.rid ${a.dir}`,
        );
      }
      if (sort.kind === 'column' && sort.column === 'update_date') {
        return walk(`SELECT r.rid FROM records r WHERE ${where} ORDER BY r.update_date ${a.dir}, r.rid ${a.dir}`);
      }
      if (sort.kind !== 'value' || sort.numeric) return null;
      const filled = "v.value IS NOT NULL AND v.value != ''";
      // CROSS JOIN: the value index drives, so rows come in order and LIMIT stops the walk.
      const valued = walk(
        `SELECT v.record_rid FROM field_values v CROSS JOIN records r ON r.rid = v.record_rid
         WHERE v.datafield_id = @sortField AND ${filled} AND ${where}
         ORDER BY v.value COLLATE NOCASE ${a.dir}, v.record_rid ${a.dir}`,
        sort.fieldId,
      );
      if (valued.length >= n) return valued;
      const rest = walk(
        `SELECT r.rid FROM records r WHERE ${where}
           AND NOT EXISTS (SELECT 1 FROM field_values v WHERE v.record_rid = r.rid AND v.datafield_id = @sortField AND ${filled})
         ORDER BY r.rid ${a.dir}`,
        sort.fieldId,
        n - valued.length,
      );
      return [...valued, ...rest];
    },
    /** Top-level record count and last change per dataset. */
    summaries: () => summaries.all(),
    /** A dataset's top-level record count, and a number that moves with every insert or delete of one. */
    counted: (dt: number): { n: number; gen: number } => counted.get(dt) ?? { n: 0, gen: 0 },
    /** Inside a transaction what is read may yet roll back: nothing read then is kept. */
    inTransaction: () => db.inTransaction,
    /** Top-level records of every dataset (kept counts: no scan). */
    allTopCount: () => allTop.get() ?? 0,
  };
});
