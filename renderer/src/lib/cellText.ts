import { fieldType } from '../../../shared/fieldTypes.js';
import type { OdrRecord } from '../../../shared/schemas/record.js';
import type { TemplateField } from '../../../shared/schemas/template.js';

/** A field of a record as one line of text for a table cell (the record list, child-record tables). */
export function cellText(rec: OdrRecord, f: TemplateField): string {
  const e = rec.fields.find((x) => x.field_uuid === f.field_uuid);
  if (!e) return '';
  const t = fieldType(f.fieldtype);
  switch (t.storage) {
    case 'boolean':
      return e.selected === 1 ? '✓' : '';
    case 'options':
      return (e.values ?? []).map((v) => v.name).join(', ');
    case 'tags':
      return (e.tags ?? []).map((v) => v.name).join(', ');
    case 'files': {
      // Image fields list each thumbnail too (it names its original in parent_image_id).
      const n = (e.files ?? []).filter((x) => x.parent_image_id === undefined).length;
      const noun = t.editor === 'image' ? 'image' : 'file';
      return n ? `${n} ${noun}${n > 1 ? 's' : ''}` : '';
    }
    default:
      return e.value === null || e.value === undefined ? '' : String(e.value);
  }
}
