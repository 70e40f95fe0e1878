import type { Db } from './db.js';
import { perConnection } from './prepared.js';
import { datasetKeyPatterns } from './syncMetaKeys.js';
import { transaction } from './tx.js';

/** What "stop syncing" dropped, per sync table (rows). */
export interface DetachCounts {
  remotes: number;
  id_map: number;
  bases: number;
  outbox: number;
  conflicts: number;
  removed: number;
  file_map: number;
}

// "Stop syncing" one top-level dataset (docs/sync.md): every row of sync state that belongs to
// it, for every remote, goes in one transaction; the dataset's records, values and files stay.
// A dataset's records are found through its top-level records (records_top_level, then
// records_by_top); records and files that are gone locally are found through the outbox,
// conflict and bin rows that still name them.
const RECORDS = `
  SELECT uuid FROM records WHERE top_rid IN (SELECT rid FROM records WHERE datatype_id = $dt AND parent_rid IS NULL)
  UNION SELECT record_uuid FROM sync_outbox WHERE dataset_uuid = $ds
  UNION SELECT record_uuid FROM sync_conflicts WHERE dataset_uuid = $ds
  UNION SELECT record_uuid FROM sync_removed WHERE dataset_uuid = $ds`;
const FILES = `
  SELECT f.uuid FROM files f JOIN records r ON r.rid = f.record_rid
    WHERE r.top_rid IN (SELECT rid FROM records WHERE datatype_id = $dt AND parent_rid IS NULL)
  UNION SELECT item_uuid FROM sync_outbox WHERE dataset_uuid = $ds AND item_uuid <> ''
  UNION SELECT item_uuid FROM sync_conflicts WHERE dataset_uuid = $ds AND item_uuid <> ''`;

type Keys = { dt: number; ds: string };

export const syncDetach = perConnection((db: Db) => {
  const s = {
    // Server copies are keyed by the server's uuid: a record's own (pulled) or its mapped one.
    bases: db.prepare<[Keys]>(
      `DELETE FROM sync_base WHERE remote_uuid IN (${RECORDS})
         OR remote_uuid IN (SELECT remote_uuid FROM sync_id_map WHERE local_uuid IN (${RECORDS}))`,
    ),
    fileMap: db.prepare<[Keys]>(`DELETE FROM sync_file_map WHERE local_uuid IN (${FILES})`),
    idMap: db.prepare<[Keys]>(`DELETE FROM sync_id_map WHERE local_uuid IN (${RECORDS})`),
    outbox: db.prepare<[{ ds: string }]>('DELETE FROM sync_outbox WHERE dataset_uuid = $ds'),
    conflicts: db.prepare<[{ ds: string }]>('DELETE FROM sync_conflicts WHERE dataset_uuid = $ds'),
    removed: db.prepare<[{ ds: string }]>('DELETE FROM sync_removed WHERE dataset_uuid = $ds'),
    offline: db.prepare<[{ ds: string }]>('DELETE FROM sync_files_offline WHERE dataset_uuid = $ds'),
    datasets: db.prepare<[{ ds: string }]>('DELETE FROM sync_datasets WHERE dataset_uuid = $ds'),
    // Its template hash and file-sweep progress, per remote: a later attach starts afresh.
    meta: db.prepare<[string]>('DELETE FROM meta WHERE key GLOB ?'),
  };
  return {
    /** Drops the sync state of top-level dataset `ds` (datatype id `dt`); answers the rows dropped. */
    detach: (dt: number, ds: string): DetachCounts =>
      transaction(
        db,
        () => {
          const k = { dt, ds };
          const only = { ds };
          // Bases and maps first: they are found through the outbox and conflict rows.
          const bases = s.bases.run(k).changes;
          const file_map = s.fileMap.run(k).changes;
          const id_map = s.idMap.run(k).changes;
          const outbox = s.outbox.run(only).changes;
          const conflicts = s.conflicts.run(only).changes;
          const removed = s.removed.run(only).changes;
          s.offline.run(only);
          for (const pattern of datasetKeyPatterns(ds)) s.meta.run(pattern);
          const remotes = s.datasets.run(only).changes;
          return { remotes, id_map, bases, outbox, conflicts, removed, file_map };
        },
        'immediate',
      ),
  };
});
