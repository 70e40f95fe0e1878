import type { Db } from './db.js';
import { metaStore } from './meta.js';
import type { OwnedTable } from './newIds.js';
import { perConnection } from './prepared.js';

/** An id given up, and whose it was (migrations/028_retired_ids.ts). */
export interface RetiredId {
  tbl: OwnedTable;
  id: number;
  owner: string;
}

/**
 * Set once the ids of the datasets trashed before migration 028 are in `retired_ids`: those
 * deletes ran before its triggers, their ids are only in the trash's files (domain/datasets/trashIds.ts).
 */
const TRASH_DONE = 'retired_ids.dataset_trash';

/** `retired_ids` filled from elsewhere than the delete triggers. */
export const retiredIdsStore = perConnection((db: Db) => {
  const ins = db.prepare<[string, number, string]>('INSERT OR IGNORE INTO retired_ids (tbl, id, owner) VALUES (?, ?, ?)');
  const meta = metaStore(db);
  return {
    /** Keeps these ids retired; one already retired keeps the owner it has. */
    retire: (rows: readonly RetiredId[]) => {
      for (const r of rows) if (Number.isInteger(r.id) && r.id > 0) ins.run(r.tbl, r.id, r.owner);
    },
    trashDone: () => meta.get(TRASH_DONE) !== undefined,
    markTrashDone: () => meta.set(TRASH_DONE, '1'),
  };
});
