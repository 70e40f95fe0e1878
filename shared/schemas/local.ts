import { z } from 'zod';
import { Int } from './common.js';
import { OdrRecord } from './record.js';

// Answers of our own /local routes (outside the ODR interface; README "Local routes"). The
// service builds them with these types and the renderer reads them with the same ones.

/** Who the app's page is logged in as (POST /local/session, GET /local/whoami). */
export const SessionUser = z.object({ email: z.string(), name: z.string(), super_user: z.boolean() });
export type SessionUser = z.infer<typeof SessionUser>;
export const LocalSession = z.object({ token: z.string(), user: SessionUser });
export type LocalSession = z.infer<typeof LocalSession>;

/** GET /local/datasets: the top-level datasets the caller may see. */
export const DatasetSummary = z.object({
  uuid: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  template_uuid: z.string().nullable(),
  /** Set for a dataset that holds another dataset's metadata. */
  metadata_for: z.string().nullable(),
  records: Int,
  updated: z.string(),
  /** Its child datasets, depth first (depth 1 = a child of this dataset), for the sidebar. */
  children: z.array(z.object({ uuid: z.string(), name: z.string(), depth: Int })),
});
export type DatasetSummary = z.infer<typeof DatasetSummary>;
export const DatasetSummaries = z.object({ datasets: z.array(DatasetSummary) });
export type DatasetSummaries = z.infer<typeof DatasetSummaries>;

/** GET /local/datasets/{uuid}/records: one page of the record table. */
export const TablePage = z.object({
  /** The matching records, or — when `total_capped` — a lower bound: the count stopped there. */
  total: Int,
  /** True when `total` is a lower bound ("10,000+"); `count=exact` asks for the figure. */
  total_capped: z.boolean(),
  offset: Int,
  records: z.array(OdrRecord),
});
export type TablePage = z.infer<typeof TablePage>;

// Small answers the OpenAPI document describes (shared/api/routes.ts).
export const JobCancelled = z.object({ deleted: z.literal(true) });
export const RemoteAdded = z.object({ id: Int });
export const ConflictResolved = z.object({ resolved: z.literal(true) });

/** Query of GET /local/datasets/{uuid}/records. */
export const RecordTableQuery = z.object({
  q: z.string().optional(),
  /** JSON text of ViewFilter[] (shared/schemas/view.ts). */
  filters: z.string().optional(),
  sort: z.string().optional(),
  dir: z.enum(['asc', 'desc']).optional(),
  offset: z.string().regex(/^\d+$/).optional(),
  limit: z.string().regex(/^\d+$/).optional(),
  /** `capped` (default): matches are counted up to 10,000; `exact`: all of them (slower on large results). */
  count: z.enum(['capped', 'exact']).optional(),
});

/** GET /local/trash: deleted datasets, kept 30 days. */
export const TrashEntry = z.object({
  id: z.string(),
  dataset_uuid: z.string(),
  name: z.string(),
  records: Int,
  deleted_at: z.string(),
  deleted_by: z.string(),
  expires_at: z.string(),
});
export type TrashEntry = z.infer<typeof TrashEntry>;
export const TrashList = z.object({ datasets: z.array(TrashEntry) });
export type TrashList = z.infer<typeof TrashList>;

/** GET /local/records/trash: deleted top-level records the caller may restore, kept 30 days. */
export const RecordTrashQuery = z.object({
  /** At most this many entries (1 … 500, default 100). */
  limit: z.string().regex(/^\d+$/, 'limit must be a whole number').optional(),
  /** Entries to skip (paging). */
  offset: z.string().regex(/^\d+$/, 'offset must be a whole number').optional(),
});
export const RecordTrashEntry = z.object({
  record_uuid: z.string(),
  dataset_uuid: z.string(),
  /** Null when the dataset is deleted too (restore the dataset first). */
  dataset_name: z.string().nullable(),
  /** The record's name as the list and the record pane call it (shared/recordName.ts). */
  name: z.string(),
  deleted_at: z.string(),
  expires_at: z.string(),
  /** Email of who deleted it. */
  deleted_by: z.string(),
  /** A child record's parent (it is restored under it, which must be there); null for a top-level record. */
  parent_uuid: z.string().nullable(),
  /** The parent's name as the table showed it at the delete. */
  parent_name: z.string().nullable(),
});
export type RecordTrashEntry = z.infer<typeof RecordTrashEntry>;
export const RecordTrashList = z.object({ records: z.array(RecordTrashEntry), total: Int });
export type RecordTrashList = z.infer<typeof RecordTrashList>;
export const MAX_RECORD_TRASH_PAGE = 500;

/** GET /api/v4/auth/status and /dataset/{uuid}/modified_files/… (ODR routes without a schema of their own). */
export const AuthStatus = z.object({ logged_in: z.boolean() });
export const ModifiedFiles = z.object({ files: z.array(z.string()) });
