import type { Domain } from '../domain.js';
import { forbidden } from '../errors.js';
import { canViewDatatype } from '../permissions.js';
import type { User } from '../users.js';
import { fileStore } from '../../store/files.js';

/** Bytes stored locally for a dataset's files and images (derivatives too), child datasets included. */
export function datasetQuota(d: Domain, user: User, datasetUuid: string): string {
  const dt = d.datatype(datasetUuid);
  if (!canViewDatatype(user, dt, d.now())) throw forbidden();
  const ids = d.schema().subtreeIds(dt);
  return String(fileStore(d.ctx.db).storedBytes(ids));
}
