import { z } from 'zod';
import { Int } from './common.js';

// CSV import into a dataset (POST /local/import with format=csv, POST /local/import/preview):
// the form both routes take, the preview the dialog shows and the result the import job ends with.

/** Column header → field uuid ("" leaves the column out). Columns not named are guessed from their names. */
export const CsvMapping = z.record(z.string(), z.string());
export type CsvMapping = z.infer<typeof CsvMapping>;

/** The multipart form (the CSV as the `file` part; `mapping` as JSON text). */
export const CsvImportForm = z.object({
  file: z.string().meta({ format: 'binary' }),
  format: z.literal('csv').meta({ description: '"csv" (leave it out for an ODR export)' }),
  dataset: z.string().meta({ description: 'uuid of the top-level dataset the rows become records of' }),
  mapping: z.string().optional().meta({ description: 'JSON object: column header → field uuid, "" to skip the column' }),
});

/** One refused cell or row. `row` counts as a spreadsheet does: the header is row 1. */
export const CsvRowFailure = z.object({
  row: Int,
  /** The column's header; null when the whole row is refused (wrong column count, unreadable). */
  column: z.string().nullable(),
  message: z.string(),
});
export type CsvRowFailure = z.infer<typeof CsvRowFailure>;

export const CsvColumn = z.object({
  name: z.string(),
  /** The field the column goes to, null when left out. */
  field_uuid: z.string().nullable(),
  /** How it was chosen: named in the mapping, guessed from the header, or none. */
  source: z.enum(['mapping', 'guess', 'none']),
});
export type CsvColumn = z.infer<typeof CsvColumn>;

/** A field the columns may be mapped to, with the options a cell may name. */
export const CsvTargetField = z.object({
  field_uuid: z.string(),
  name: z.string(),
  fieldtype: z.string(),
  /** Option or tag names a cell may use (tags as "Parent > Child" where a name repeats). */
  choices: z.array(z.string()).optional(),
});

export const CsvPreview = z.object({
  dataset: z.string(),
  columns: z.array(CsvColumn),
  fields: z.array(CsvTargetField),
  /** The first data rows as read (up to 20). */
  rows: z.array(z.array(z.string())),
  /** Data rows in the file. */
  total: Int,
  /** Rows that would be refused. */
  failed_rows: Int,
  /** Every refused cell, in file order (at most 10,000 listed). */
  failures: z.array(CsvRowFailure),
  failures_truncated: z.boolean(),
});
export type CsvPreview = z.infer<typeof CsvPreview>;

/** The import job's result (its additional_data once complete). */
export const CsvImportResult = z.object({
  kind: z.literal('csv'),
  dataset: z.string(),
  total: Int,
  imported: Int,
  failed_rows: Int,
  failures: z.array(CsvRowFailure),
  failures_truncated: z.boolean(),
  seconds: z.number(),
});
export type CsvImportResult = z.infer<typeof CsvImportResult>;
