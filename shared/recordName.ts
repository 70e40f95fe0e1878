import { fieldType } from './fieldTypes.js';

/** What naming reads of a record: the record JSON (a rendered record, a trash snapshot) has these. */
export interface NamedRecord {
  record_name?: unknown;
  internal_id: number | string;
  fields: readonly { field_uuid: string; value?: unknown }[];
}

/** What naming reads of its template: the fields in layout order, each with its type. */
export interface NamingTemplate {
  fields: readonly { field_uuid: string; fieldtype: string }[];
}

/**
 * What a person calls a record: the template's name field (the service's `record_name` when it is
 * not just the id), else its first text field with a value, else `#` and its id. One rule for
 * every place that names a record (the list, the pane, the Trash), so one record is called alike
 * wherever it shows.
 */
export function recordName(rec: NamedRecord, tpl: NamingTemplate): string {
  const named = String(rec.record_name ?? '');
  if (named && named !== String(rec.internal_id)) return named;
  for (const f of tpl.fields) {
    if (fieldType(f.fieldtype).storage !== 'text') continue;
    const v = rec.fields.find((e) => e.field_uuid === f.field_uuid)?.value;
    if (v !== null && v !== undefined && String(v).trim()) return String(v).trim().slice(0, 120);
  }
  return `#${rec.internal_id}`;
}
