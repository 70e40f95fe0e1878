import { z } from 'zod';
import { Int } from './common.js';

// Answers of the local routes behind the UI's selection (electron/service/api/routes/localSelection.ts).

/** The table view a request names: full-text `q`, `filters` (JSON text of ViewFilter[]), `sort`, `dir` (as GET /local/datasets/{uuid}/records). */
export const ViewQuery = z.object({
  q: z.string().optional(),
  filters: z.string().optional(),
  sort: z.string().optional(),
  dir: z.enum(['asc', 'desc']).optional(),
});
export type ViewQuery = z.infer<typeof ViewQuery>;

/** GET /local/datasets/{uuid}/record-uuids: uuids of a stretch of the view (select-all, Shift ranges). */
export const ViewUuidsQuery = ViewQuery.extend({
  offset: z.string().regex(/^\d+$/).optional(),
  limit: z.string().regex(/^\d+$/).optional(),
});
export const ViewUuids = z.object({ total: Int, offset: Int, uuids: z.array(z.string()) });
export type ViewUuids = z.infer<typeof ViewUuids>;

/** GET /local/datasets/{uuid}/position/{record}: the record's row in the view, -1 when not in it. */
export const ViewPosition = z.object({ record: z.string(), index: z.number().int() });
export type ViewPosition = z.infer<typeof ViewPosition>;
