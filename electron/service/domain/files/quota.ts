import type { Domain } from '../domain.js';
import { forbidden } from '../errors.js';
import { canViewDatatype } from '../permissions.js';
import type { User } from '../users.js';

/** Bytes stored locally for a dataset's files and images (derivatives too), child datasets included. */
export function datasetQuota(d: Domain, user: User, datasetUuid: string): string {
  const dt = d.datatype(datasetUuid);
  if (!canViewDatatype(user, dt, d.now())) throw forbidden();
  const ids = d.schema().subtreeIds(dt);
  const total = d.ctx.db
    .prepare(
      `SELECT COALESCE(SUM(f.file_size), 0) FROM files f JOIN records r ON r.rid = f.record_rid
     WHERE r.datatype_id IN (SELECT value FROM json_each(?)) AND f.content_hash IS NOT NULL`,
    )
    .pluck()
    .get(JSON.stringify(ids)) as number;
  return String(total);
}
