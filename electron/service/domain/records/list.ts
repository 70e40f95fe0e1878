import { formatTimestamp } from '../../../../shared/dates.js';
import type { RecordIdList } from '../../../../shared/schemas/template.js';
import type { Domain } from '../domain.js';
import { badRequest, RightLost } from '../errors.js';
import { canViewDatatype, seesAll } from '../permissions.js';
import type { RecordRow } from '../../store/rows.js';
import { recordLists, type ListScope } from '../../store/recordLists.js';
import type { DatatypeInfo } from '../schemaCache.js';
import type { User } from '../users.js';
import { datasetHidden } from '../rights.js';
import { topReadable } from '../access.js';

export const MAX_PAGE = 10_000;

/** An entry of an id list, as the real server writes it. */
export type IdEntry = RecordIdList['records'][number];

// Top-level records of a dataset in storage order. Viewers who do not administer the dataset
// see the rows the row rule lets them read (store/visibility.ts).

/** Every STEP-th rid is kept, so a page's OFFSET walks fewer than STEP index entries. */
const STEP = 256;
/** Datasets whose start rids are kept (least recently used go first): 4 KB each at 1M records. */
const KEPT = 16;

export class RecordLists {
  /** Per dataset: every STEP-th top-level rid in order, valid while the dataset's count `gen` stays (gen never repeats: migration 018). */
  private readonly starts = new Map<number, { gen: number; rids: number[] }>();

  constructor(
    private readonly d: Domain,
    private readonly step = STEP,
  ) {}

  /**
   * OFFSET costs one index step per skipped row (20-25 ms at offset 500k, 1M records): pages
   * of `all` start from a kept rid instead. One walk of the dataset's rids builds the starts
   * again after any insert or delete of one of its top-level records.
   */
  private startsOf(dt: number): number[] {
    const lists = recordLists(this.d.ctx.db);
    const { gen } = lists.counted(dt);
    let kept = this.starts.get(dt);
    if (kept?.gen !== gen) {
      const rids = lists.everyNth(dt, this.step);
      // A gen read inside a transaction that rolls back may be handed out again with other rows.
      if (lists.inTransaction()) return rids;
      kept = { gen, rids };
    }
    this.starts.delete(dt);
    this.starts.set(dt, kept);
    while (this.starts.size > KEPT) this.starts.delete(this.starts.keys().next().value!);
    return kept.rids;
  }

  private scope(user: User, dt: DatatypeInfo): ListScope {
    if (dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
    if (!canViewDatatype(user, dt, this.d.now())) throw datasetHidden(dt);
    return seesAll(user, dt) ? 'all' : 'visible';
  }

  /** GET /dataset/{uuid}/{limit}/{offset}: a page of full records. */
  page(user: User, dt: DatatypeInfo, limit: number, offset: number): RecordRow[] {
    if (limit > MAX_PAGE) throw badRequest(`limit may be at most ${MAX_PAGE}`);
    const scope = this.scope(user, dt);
    const args = { dt: dt.id, limit, offset, user: user.id, now: this.d.now() };
    if (scope === 'visible' || offset < this.step) return recordLists(this.d.ctx.db).page(scope, args);
    const starts = this.startsOf(dt.id);
    const k = Math.floor(offset / this.step);
    if (k >= starts.length) return [];
    return recordLists(this.d.ctx.db).pageFrom({ ...args, from: starts[k]!, offset: offset - k * this.step });
  }

  /**
   * GET /search/database/{uuid}/records/{limit}/{offset} and the modified-records route
   * (docs/odr-server.md §5.8): ids and names only; limit 0 means all; `sinceMs` filters by change
   * time. The request is checked here (its 400 or 403 before any byte is sent); the answer is the
   * reader of the list's next `config.idListChunk` entries in rid order (an empty list once it is done), each
   * step read with the viewer's rights and the clock of that step, as the streamed record lists
   * are: a list of every id of a 1M-record dataset is never held whole.
   */
  ids(user: User, dt: DatatypeInfo, limit: number, offset: number, sinceMs: number | null): () => IdEntry[] {
    const scope = this.scope(user, dt);
    const since = sinceMs === null ? null : formatTimestamp(new Date(sinceMs - (sinceMs % 1000)));
    const base = { dt: dt.id, since, nameField: dt.nameFieldId ?? -1 };
    if (offset > 0) {
      const total = recordLists(this.d.ctx.db).count(scope, { ...base, user: user.id, now: this.d.now() });
      if (offset > total) {
        throw badRequest(`This database only has ${total} viewable records, but a starting offset of ${offset} was specified.`);
      }
    }
    let left = limit === 0 ? Infinity : limit;
    let after = 0; // the last rid listed: each step starts past it (no OFFSET walk)
    let skip = offset;
    return () => {
      if (left <= 0) return [];
      const viewer = this.d.users.now(user);
      const now = this.d.now();
      const current = this.d.schema().datatypes.get(dt.id);
      // The dataset deleted or hidden from the viewer meanwhile: the answer must error, not end as
      // a well-formed shorter list (a syncing peer would read the missing ids as removals).
      if (!current) throw new RightLost(`dataset ${dt.uuid} was deleted while its ids were listed`);
      if (!canViewDatatype(viewer, current, now)) throw new RightLost(`dataset ${dt.uuid} was hidden from you while its ids were listed`);
      const n = Math.min(left, this.d.ctx.config.idListChunk);
      const rows = recordLists(this.d.ctx.db).ids(seesAll(viewer, current) ? 'all' : 'visible', {
        ...base,
        user: viewer.id,
        now,
        after,
        limit: n,
        offset: skip,
      });
      skip = 0;
      left = rows.length < n ? 0 : left - rows.length;
      if (rows.length) after = rows.at(-1)!.rid;
      return rows.map((r) => ({
        internal_id: r.internal_id,
        unique_id: r.uuid,
        external_id: '',
        record_name: r.name === null || r.name === undefined ? '' : String(r.name),
      }));
    };
  }

  /**
   * The rows of `rids` (top-level, in that order) that the viewer may read now: their rights read
   * again and the clock taken now, deleted rows left out. For lists chosen at one time and read
   * later (a streamed answer's chunks, an export's batches), which must show nothing the viewer
   * lost the right to meanwhile; render them with the `viewer` and `now` answered here.
   * A row that is no longer top-level, or whose uuid is not the one picked (`uuids`, in the order
   * of `rids`, when the caller has them), is left out as deleted. That filter is belt-and-braces:
   * on a database at version 25 or later no rid is given to a second record
   * (migrations/025_record_id_floor.ts starts the floor at MAX(rid), so not even a pre-025 rid
   * comes back), hence no test can reach it. It is kept because it costs nothing per row and a
   * wrong record in an answer would be a leak.
   */
  readableNow(viewer: User, rids: readonly number[], uuids?: readonly string[]): { viewer: User; now: string; rows: RecordRow[] } {
    const fresh = this.d.users.now(viewer);
    const now = this.d.now();
    const picked = uuids && new Map(rids.map((rid, i) => [rid, uuids[i]]));
    const rows = recordLists(this.d.ctx.db)
      .byRids([...rids])
      .filter((r) => r.parent_rid === null && (!picked || picked.get(r.rid) === r.uuid))
      .filter(topReadable(this.d.schema(), fresh, now));
    return { viewer: fresh, now, rows };
  }
}
