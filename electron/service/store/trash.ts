import type { Db } from './db.js';
import { perConnection } from './prepared.js';
import { recordTrashStore, type KeptFile } from './recordTrash.js';
import { RECORD_COLUMNS, type RecordRow } from './rows.js';

/** Who created each file of a deleted dataset, its bytes' hash, href and mime: kept with the trash entry. */
export interface TrashedFileRow {
  uuid: string;
  created_by: number | null;
  content_hash: string | null;
  source_href: string | null;
  mime: string | null;
}

const IN_TYPES = '(SELECT value FROM json_each(?))';

/** What moving a dataset to the trash and back reads and writes (the rules: domain/datasets/trash.ts). */
export const trashStore = perConnection((db: Db) => {
  const s = {
    tops: db.prepare<[number], RecordRow>(
      `SELECT ${RECORD_COLUMNS} FROM records WHERE datatype_id = ? AND parent_rid IS NULL ORDER BY rid`,
    ),
    creators: db.prepare<[string], { uuid: string; created_by: number | null }>(
      `SELECT uuid, created_by FROM records WHERE datatype_id IN ${IN_TYPES}`,
    ),
    files: db.prepare<[string], TrashedFileRow>(
      `SELECT f.uuid, f.created_by, f.content_hash, f.source_href, f.mime FROM files f JOIN records r ON r.rid = f.record_rid WHERE r.datatype_id IN ${IN_TYPES}`,
    ),
    deleteDataset: db.prepare<[number]>('DELETE FROM datatypes WHERE id = ?'),
    setOwner: db.prepare<[number | null, string]>('UPDATE datatypes SET owner_id = ? WHERE uuid = ?'),
  };
  return {
    /** Top-level records of a dataset, in storage order. */
    tops: (datasetId: number) => s.tops.all(datasetId),
    /** Record uuid → creator, over these datatypes. */
    creators: (datatypeIds: number[]) => s.creators.all(JSON.stringify(datatypeIds)),
    files: (datatypeIds: number[]) => s.files.all(JSON.stringify(datatypeIds)),
    /** Child datatypes, fields, options, tags, records and values go by ON DELETE CASCADE. */
    deleteDataset: (datasetId: number) => void s.deleteDataset.run(datasetId),
    /** After a restore by import: owner, record creators and file facts as they were (recordTrashStore.restoreOwnership). */
    restoreOwnership: (
      datasetUuid: string,
      ownerId: number | null,
      creators: Record<string, number | null>,
      files: Record<string, KeptFile>,
      mimeOf: (name: string) => string | undefined,
    ) => {
      s.setOwner.run(ownerId, datasetUuid);
      recordTrashStore(db).restoreOwnership(JSON.stringify(creators), JSON.stringify(files), mimeOf);
    },
  };
});
