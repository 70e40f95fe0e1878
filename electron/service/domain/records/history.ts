import { MAX_HISTORY, type HistoryEntry, type RecordHistory } from '../../../../shared/schemas/history.js';
import { historyStore, type HistoryRow } from '../../store/history.js';
import { canRead, readableRecord } from '../access.js';
import type { Domain } from '../domain.js';
import { badRequest } from '../errors.js';
import type { RecordRow } from '../../store/rows.js';
import type { User } from '../users.js';

export interface HistoryOptions {
  field?: string;
  limit: number;
  before?: number;
}

const parse = (json: string | null): unknown => (json === null ? null : (JSON.parse(json) as unknown));

function entry(r: HistoryRow): HistoryEntry {
  return {
    seq: r.seq,
    at: r.at,
    op: r.op,
    record_uuid: r.record_uuid,
    field_uuid: r.field_uuid,
    item_uuid: r.item_uuid,
    old: parse(r.old),
    new: parse(r.new),
    origin: r.origin,
    user: r.email === null ? null : { email: r.email, name: `${r.first_name ?? ''} ${r.last_name ?? ''}`.trim() || r.email },
  };
}

/** Whether `rec` is `root` or lies under it. */
function under(d: Domain, rec: RecordRow, root: RecordRow): boolean {
  for (let r: RecordRow | undefined = rec; r; r = r.parent_rid === null ? undefined : d.store.byRid(r.parent_rid)) {
    if (r.rid === root.rid) return true;
  }
  return false;
}

/**
 * A record's history: its changes and those of its child records, newest first. The record is
 * gated like a record read (404 unknown, 403 not readable); entries of child records the caller
 * may not read, or that no longer exist, are left out.
 */
export function recordHistory(d: Domain, user: User, uuid: string, o: HistoryOptions): RecordHistory {
  if (o.limit < 1 || o.limit > MAX_HISTORY) throw badRequest(`limit must be between 1 and ${MAX_HISTORY}, not ${o.limit}`);
  if (o.field !== undefined && !d.schema().fieldsByUuid.has(o.field)) throw badRequest(`field ${o.field} is not a known field`);
  const rec = readableRecord(d, user, uuid);
  const top = d.store.topOf(rec);
  const rows = historyStore(d.ctx.db).page({
    top: top.uuid,
    field: o.field,
    before: o.before ?? Number.MAX_SAFE_INTEGER,
    limit: o.limit + 1,
  });
  const more = rows.length > o.limit;
  // Few distinct records per page (the record and some children): each checked once.
  const shown = new Map<string, boolean>([[rec.uuid, true]]);
  const visible = (u: string) => {
    let ok = shown.get(u);
    if (ok === undefined) {
      const r = d.store.byUuid(u);
      ok = !!r && under(d, r, rec) && canRead(d, user, r);
      shown.set(u, ok);
    }
    return ok;
  };
  return {
    record_uuid: rec.uuid,
    entries: rows
      .slice(0, o.limit)
      .filter((r) => visible(r.record_uuid))
      .map(entry),
    more,
  };
}
