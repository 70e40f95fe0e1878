import { PRIVATE_DATE } from '../../../../shared/dates.js';
import type { Ctx } from '../context.js';
import { badRequest, forbidden } from '../errors.js';
import { canViewDatatype, seesAll } from '../permissions.js';
import { RECORD_COLUMNS, type RecordRow } from '../rows.js';
import type { DatatypeInfo, Schema } from '../schemaCache.js';
import type { User } from '../users.js';
import { ftsQuery, type SearchIndex } from './searchIndex.js';
import type { DatasetSummary } from '../../../../shared/schemas/local.js';

/** What the table reads (the Domain provides it; named here so domain.ts and this file do not import each other). */
export interface TableView {
  ctx: Pick<Ctx, 'db'>;
  now(): string;
  schema(): Schema;
}
type Domain = TableView;

export interface TableQuery {
  q?: string;
  /** A field uuid, or `_id` (internal id), `_updated`, `_created`, `_public`. */
  sort?: string;
  dir?: 'asc' | 'desc';
  offset: number;
  limit: number;
}

const SPECIAL: Record<string, string> = {
  _id: 'r.internal_id',
  _updated: 'r.update_date',
  _created: 'r.create_date',
  _public: 'r.public_date',
};
const CACHE = 8;

/**
 * The UI's record table: a dataset's top-level records filtered by the full-text index and
 * sorted by a column. The ordered id list is computed once per query and data generation and
 * kept (a few, least recently used), so scrolling through 100k sorted rows pages cheaply.
 */
export class RecordTable {
  private readonly cache = new Map<string, number[]>();

  constructor(
    private readonly d: Domain,
    private readonly search: SearchIndex,
  ) {}

  /** ORDER BY terms; `nulls` terms keep empty values last whatever the direction. */
  private orderFor(
    dt: DatatypeInfo,
    sort: string | undefined,
  ): { join: string; order: { sql: string; nulls?: boolean }[]; args: Record<string, unknown> } {
    if (!sort) return { join: '', order: [{ sql: 'r.rid' }], args: {} };
    if (SPECIAL[sort]) return { join: '', order: [{ sql: SPECIAL[sort] }], args: {} };
    const f = dt.fieldsByUuid.get(sort) ?? dt.fields.find((x) => x.templateFieldUuid === sort);
    if (!f) throw badRequest(`sort: ${sort} is not a field of dataset ${dt.uuid}`);
    if (['text', 'integer', 'decimal', 'datetime', 'boolean'].includes(f.type.storage)) {
      return {
        join: 'LEFT JOIN field_values v ON v.record_rid = r.rid AND v.datafield_id = @sortField',
        order: [
          { sql: "(v.value IS NULL OR v.value = '')", nulls: true },
          { sql: f.type.storage === 'integer' || f.type.storage === 'decimal' ? 'CAST(v.value AS REAL)' : 'v.value' },
        ],
        args: { sortField: f.id },
      };
    }
    if (f.type.storage === 'options') {
      const first =
        '(SELECT MIN(o.name) FROM option_selections s JOIN radio_options o ON o.id = s.option_id WHERE s.record_rid = r.rid AND s.datafield_id = @sortField)';
      return { join: '', order: [{ sql: `${first} IS NULL`, nulls: true }, { sql: first }], args: { sortField: f.id } };
    }
    throw badRequest(`sort: ${f.fieldtype} fields are not sortable`);
  }

  query(user: User, dt: DatatypeInfo, q: TableQuery): { total: number; rows: RecordRow[] } {
    if (dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
    const now = this.d.now();
    if (!canViewDatatype(user, dt, now)) throw forbidden();
    const admin = seesAll(user, dt);
    const match = q.q ? ftsQuery(q.q) : null;
    if (match) this.search.catchUp();
    const gen = this.d.ctx.db.prepare('SELECT COALESCE(MAX(seq), 0) FROM change_log').pluck().get() as number;
    const key = JSON.stringify([dt.id, admin ? 'all' : `${user.id}@${now.slice(0, 16)}`, match, q.sort ?? '', q.dir ?? 'asc', gen]);
    let ids = this.cache.get(key);
    if (!ids) {
      const { join, order, args } = this.orderFor(dt, q.sort);
      const dir = q.dir === 'desc' ? 'DESC' : 'ASC';
      const orderSql = order.map((o) => (o.nulls ? o.sql : `${o.sql} ${dir}`)).join(', ');
      const visible = admin ? '' : `AND (r.created_by = @user OR (r.public_date != '${PRIVATE_DATE}' AND r.public_date <= @now))`;
      const filter = match ? 'AND r.rid IN (SELECT rowid FROM record_search WHERE record_search MATCH @match)' : '';
      const sql = `SELECT r.rid FROM records r ${join} WHERE r.datatype_id = @dt AND r.parent_rid IS NULL ${visible} ${filter}
                   ORDER BY ${orderSql}, r.rid ${dir}`;
      ids = this.d.ctx.db
        .prepare(sql)
        .pluck()
        .all({ dt: dt.id, user: user.id, now, match, ...args }) as number[];
      this.cache.set(key, ids);
      while (this.cache.size > CACHE) this.cache.delete(this.cache.keys().next().value!);
    } else {
      this.cache.delete(key);
      this.cache.set(key, ids);
    }
    const slice = ids.slice(q.offset, q.offset + q.limit);
    const rows = this.d.ctx.db
      .prepare(`SELECT ${RECORD_COLUMNS} FROM records WHERE rid IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(slice)) as RecordRow[];
    const byRid = new Map(rows.map((r) => [r.rid, r]));
    return { total: ids.length, rows: slice.map((rid) => byRid.get(rid)!).filter(Boolean) };
  }
}

/** The datasets list of the UI: name, record count and last change per visible dataset. */
export function datasetSummaries(d: Domain, user: User): DatasetSummary[] {
  const now = d.now();
  const stats = new Map(
    (
      d.ctx.db
        .prepare(
          `SELECT datatype_id AS id, COUNT(*) AS n, MAX(update_date) AS updated FROM records WHERE parent_rid IS NULL GROUP BY datatype_id`,
        )
        .all() as { id: number; n: number; updated: string }[]
    ).map((s) => [s.id, s]),
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
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
