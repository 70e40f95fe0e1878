import type { Domain } from '../domain.js';
import { canViewDatatype } from '../permissions.js';
import type { User } from '../users.js';
import { fileStore } from '../../store/files.js';
import { datasetHidden } from '../rights.js';

/** Bytes stored locally for a dataset's files and images (derivatives too), child datasets included. */
export function datasetQuota(d: Domain, user: User, datasetUuid: string): string {
  const dt = d.datatype(datasetUuid);
  if (!canViewDatatype(user, dt, d.now())) throw datasetHidden(dt);
  const ids = d.schema().subtreeIds(dt);
  return String(fileStore(d.ctx.db).storedBytes(ids));
}
