import type { Statement } from 'better-sqlite3';
import { PRIVATE_DATE, formatTimestamp } from '../../../../shared/dates.js';
import type { Domain } from '../domain.js';
import { badRequest, forbidden } from '../errors.js';
import { canViewDatatype, seesAll } from '../permissions.js';
import { RECORD_COLUMNS, type RecordRow } from '../rows.js';
import type { DatatypeInfo } from '../schemaCache.js';
import type { User } from '../users.js';

export const MAX_PAGE = 10_000;

// Top-level records of a dataset in storage order. Viewers who do not administer the dataset
// see public records and their own.
const VISIBLE = `(r.created_by = @user OR (r.public_date != '${PRIVATE_DATE}' AND r.public_date <= @now))`;

export class RecordLists {
  private readonly pageStmt: Record<'all' | 'visible', Statement>;
  private readonly idsStmt: Record<'all' | 'visible', Statement>;
  private readonly countStmt: Record<'all' | 'visible', Statement>;

  constructor(private readonly d: Domain) {
    const db = d.ctx.db;
    const base = (filter: string) => `FROM records r WHERE r.datatype_id = @dt AND r.parent_rid IS NULL ${filter}`;
    const modified = 'AND (@since IS NULL OR r.update_date >= @since OR r.create_date >= @since)';
    const make = (filter: string) => ({
      page: db.prepare(
        `SELECT ${RECORD_COLUMNS.split(', ')
          .map((c) => `r.${c}`)
          .join(', ')} ${base(filter)} ORDER BY r.rid LIMIT @limit OFFSET @offset`,
      ),
      ids: db.prepare(`SELECT r.internal_id, r.uuid, v.value AS name
                       FROM records r LEFT JOIN field_values v ON v.record_rid = r.rid AND v.datafield_id = @nameField
                       WHERE r.datatype_id = @dt AND r.parent_rid IS NULL ${filter} ${modified}
                       ORDER BY r.rid LIMIT @limit OFFSET @offset`),
      count: db.prepare(`SELECT COUNT(*) ${base(filter)} ${modified}`).pluck(),
    });
    const all = make('');
    const visible = make(`AND ${VISIBLE}`);
    this.pageStmt = { all: all.page, visible: visible.page };
    this.idsStmt = { all: all.ids, visible: visible.ids };
    this.countStmt = { all: all.count, visible: visible.count };
  }

  private scope(user: User, dt: DatatypeInfo): 'all' | 'visible' {
    if (dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
    if (!canViewDatatype(user, dt, this.d.now())) throw forbidden();
    return seesAll(user, dt) ? 'all' : 'visible';
  }

  /** GET /dataset/{uuid}/{limit}/{offset}: a page of full records. */
  page(user: User, dt: DatatypeInfo, limit: number, offset: number): RecordRow[] {
    if (limit > MAX_PAGE) throw badRequest(`limit may be at most ${MAX_PAGE}`);
    const scope = this.scope(user, dt);
    return this.pageStmt[scope].all({ dt: dt.id, limit, offset, user: user.id, now: this.d.now() }) as RecordRow[];
  }

  /**
   * GET /search/database/{uuid}/records/{limit}/{offset} and the modified-records route
   * (docs/odr-server.md §5.8): ids and names only; limit 0 means all; `sinceMs` filters by change time.
   */
  ids(user: User, dt: DatatypeInfo, limit: number, offset: number, sinceMs: number | null) {
    const scope = this.scope(user, dt);
    const since = sinceMs === null ? null : formatTimestamp(new Date(sinceMs - (sinceMs % 1000)));
    const args = { dt: dt.id, user: user.id, now: this.d.now(), since, nameField: dt.nameFieldId ?? -1 };
    if (offset > 0) {
      const total = this.countStmt[scope].get(args) as number;
      if (offset > total) {
        throw badRequest(`This database only has ${total} viewable records, but a starting offset of ${offset} was specified.`);
      }
    }
    const rows = this.idsStmt[scope].all({ ...args, limit: limit === 0 ? -1 : limit, offset }) as {
      internal_id: number;
      uuid: string;
      name: unknown;
    }[];
    return rows.map((r) => ({
      internal_id: r.internal_id,
      unique_id: r.uuid,
      external_id: '',
      record_name: r.name === null || r.name === undefined ? '' : String(r.name),
    }));
  }
}
