import { fieldType } from '../../../shared/fieldTypes';
import type { OdrRecord } from '../../../shared/schemas/record';
import type { Template } from '../../../shared/schemas/template';

/**
 * What a person calls a record: the template's name field (the service's `record_name` when it is
 * not just the id), else its first text field with a value, else its id.
 */
export function recordName(rec: OdrRecord, tpl: Template): string {
  const named = String(rec.record_name ?? '');
  if (named && named !== String(rec.internal_id)) return named;
  for (const f of tpl.fields) {
    if (fieldType(f.fieldtype).storage !== 'text') continue;
    const v = rec.fields.find((e) => e.field_uuid === f.field_uuid)?.value;
    if (v !== null && v !== undefined && String(v).trim()) return String(v).trim().slice(0, 120);
  }
  return `#${rec.internal_id}`;
}
