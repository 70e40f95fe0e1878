import { z } from 'zod';
import { Int } from './common.js';

// The record list's view beyond full-text search: per-field filters, the columns a user keeps
// per dataset, saved searches, and the export of a view. The service parses them with these
// schemas and the renderer builds them with the same ones.

const FieldRef = z.string().min(1, 'field must not be empty').max(64, 'field is longer than 64 characters');
/**
 * A number (`-1.5` or `"-1.5"`) or a date (`"2024-05-01"`): the field's type says which. JSON
 * numbers are taken as they are, so scripts need not quote them.
 */
const Bound = z.union([z.number(), z.string().max(32, 'a bound is longer than 32 characters')]);

/** One per-field filter; every filter of a view must hold (AND), together with the full-text `q`. */
export const ViewFilter = z.discriminatedUnion(
  'kind',
  [
    /** A text field contains the words (case-insensitive); a JSON number is searched as its digits. */
    z.object({
      kind: z.literal('text'),
      field: FieldRef,
      contains: z.union([z.number(), z.string().min(1, 'contains must not be empty').max(500)]),
    }),
    /** A number or date field between min and max (each inclusive, each optional but not both). */
    z.object({ kind: z.literal('range'), field: FieldRef, min: Bound.optional(), max: Bound.optional() }),
    /** An option or tag field has one of these (uuids) selected — or, with `not`, none of them. */
    z.object({
      kind: z.literal('option'),
      field: FieldRef,
      options: z.array(z.string().min(1).max(64)).min(1, 'options must name at least one option').max(200),
      not: z.boolean().optional(),
    }),
    /** A file or image field has (or has no) file. */
    z.object({ kind: z.literal('file'), field: FieldRef, has: z.boolean() }),
    /** The record is public now (or private: never public, or public only later). */
    z.object({ kind: z.literal('public'), public: z.boolean() }),
  ],
  { error: 'kind must be one of text, range, option, file, public' },
);
export type ViewFilter = z.infer<typeof ViewFilter>;

export const MAX_FILTERS = 50;
export const ViewFilters = z.array(ViewFilter).max(MAX_FILTERS, `at most ${MAX_FILTERS} filters`);

/** A whole view: full-text search, filters and sort (what a saved search keeps and an export reads). */
export const SearchView = z.object({
  q: z.string().max(500).optional(),
  filters: ViewFilters.optional(),
  sort: z.string().max(64).optional(),
  dir: z.enum(['asc', 'desc']).optional(),
});
export type SearchView = z.infer<typeof SearchView>;

/** POST /local/datasets/{uuid}/saved-searches. */
export const SavedSearchCreate = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(120, 'name is longer than 120 characters'),
  view: SearchView,
});
export type SavedSearchCreate = z.infer<typeof SavedSearchCreate>;
export const SavedSearch = SavedSearchCreate.extend({ id: Int, dataset_uuid: z.string(), created: z.string() });
export type SavedSearch = z.infer<typeof SavedSearch>;
export const SavedSearchList = z.object({ searches: z.array(SavedSearch) });
export type SavedSearchList = z.infer<typeof SavedSearchList>;
export const SavedSearchDeleted = z.object({ deleted: Int });

/** `_id` (internal id) or a field uuid: the columns the list can show after the pinned name. */
export const ColumnKey = z.string().min(1).max(64);
export const MIN_COLUMN_WIDTH = 60;
export const MAX_COLUMN_WIDTH = 1200;

/** PUT/GET /local/datasets/{uuid}/columns: the caller's columns of a dataset, in order, with widths. */
export const ColumnLayout = z.object({
  columns: z
    .array(
      z.object({
        key: ColumnKey,
        width: z
          .number()
          .int('width must be an integer')
          .min(MIN_COLUMN_WIDTH, `width must be at least ${MIN_COLUMN_WIDTH}`)
          .max(MAX_COLUMN_WIDTH, `width must be at most ${MAX_COLUMN_WIDTH}`)
          .optional(),
      }),
    )
    .max(500),
});
export type ColumnLayout = z.infer<typeof ColumnLayout>;
/** null: the caller never chose; the list shows its default columns. */
export const ColumnLayoutAnswer = z.object({ layout: ColumnLayout.nullable() });
export type ColumnLayoutAnswer = z.infer<typeof ColumnLayoutAnswer>;

/** POST /local/datasets/{uuid}/export: the view, its columns, the format; `files` adds the records' files in a zip. */
export const ExportRequest = z.object({
  format: z.enum(['csv', 'json'], { error: 'format must be "csv" or "json"' }),
  view: SearchView.default({}),
  /** CSV columns after record uuid, internal id and name; the JSON export always has whole records. */
  columns: z.array(ColumnKey).max(500).default([]),
  /** A zip holding the export and every file of the exported records' file and image fields. */
  files: z.boolean().default(false),
});
export type ExportRequest = z.infer<typeof ExportRequest>;

/** additional_data of a finished export job. */
export const ExportResult = z.object({
  file: z.string(),
  bytes: Int,
  records: Int,
  files: Int,
  /** Files listed but not on this computer (not in the zip). */
  missing: Int,
  download: z.string(),
});
export type ExportResult = z.infer<typeof ExportResult>;
