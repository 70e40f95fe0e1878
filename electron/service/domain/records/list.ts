import { formatTimestamp } from '../../../../shared/dates.js';
import type { Domain } from '../domain.js';
import { badRequest, forbidden } from '../errors.js';
import { canViewDatatype, seesAll } from '../permissions.js';
import type { RecordRow } from '../../store/rows.js';
import { recordLists, type ListScope } from '../../store/recordLists.js';
import type { DatatypeInfo } from '../schemaCache.js';
import type { User } from '../users.js';

export const MAX_PAGE = 10_000;

// Top-level records of a dataset in storage order. Viewers who do not administer the dataset
// see the rows the row rule lets them read (store/visibility.ts).

export class RecordLists {
  constructor(private readonly d: Domain) {}

  private scope(user: User, dt: DatatypeInfo): ListScope {
    if (dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
    if (!canViewDatatype(user, dt, this.d.now())) throw forbidden();
    return seesAll(user, dt) ? 'all' : 'visible';
  }

  /** GET /dataset/{uuid}/{limit}/{offset}: a page of full records. */
  page(user: User, dt: DatatypeInfo, limit: number, offset: number): RecordRow[] {
    if (limit > MAX_PAGE) throw badRequest(`limit may be at most ${MAX_PAGE}`);
    const scope = this.scope(user, dt);
    return recordLists(this.d.ctx.db).page(scope, { dt: dt.id, limit, offset, user: user.id, now: this.d.now() });
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
      const total = recordLists(this.d.ctx.db).count(scope, args);
      if (offset > total) {
        throw badRequest(`This database only has ${total} viewable records, but a starting offset of ${offset} was specified.`);
      }
    }
    const rows = recordLists(this.d.ctx.db).ids(scope, { ...args, limit: limit === 0 ? -1 : limit, offset });
    return rows.map((r) => ({
      internal_id: r.internal_id,
      unique_id: r.uuid,
      external_id: '',
      record_name: r.name === null || r.name === undefined ? '' : String(r.name),
    }));
  }
}
