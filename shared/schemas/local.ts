import { z } from 'zod';
import { Int } from './common.js';
import { OdrRecord } from './record.js';

// Answers of our own /local routes (outside the ODR interface), and a few small ODR answers
// that had no schema yet; the OpenAPI document and the tests read them.

export const DatasetSummary = z.object({
  uuid: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  template_uuid: z.string().nullable(),
  /** Set for a dataset that holds another dataset's metadata. */
  metadata_for: z.string().nullable(),
  records: Int,
  updated: z.string(),
});
export type DatasetSummary = z.infer<typeof DatasetSummary>;
export const DatasetSummaries = z.object({ datasets: z.array(DatasetSummary) });

export const RecordTablePage = z.object({ total: Int, offset: Int, records: z.array(OdrRecord) });

export const Whoami = z.object({ email: z.string(), name: z.string(), super_user: z.boolean() });
export const SessionResponse = z.object({ token: z.string(), user: Whoami });

export const JobCancelled = z.object({ deleted: z.literal(true) });
export const RemoteAdded = z.object({ id: Int });
export const ConflictResolved = z.object({ resolved: z.literal(true) });

/** Query of GET /local/datasets/{uuid}/records. */
export const RecordTableQuery = z.object({
  q: z.string().optional(),
  sort: z.string().optional(),
  dir: z.enum(['asc', 'desc']).optional(),
  offset: z.string().regex(/^\d+$/).optional(),
  limit: z.string().regex(/^\d+$/).optional(),
});
