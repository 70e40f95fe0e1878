import { fieldType } from '../../../shared/fieldTypes';
import type { TemplateTag } from '../../../shared/schemas/template';
import { useEdits } from '../lib/edits';
import { itemNames } from '../lib/history';
import type { FieldProps } from './types';

/** Radio and select fields: one choice (radio group or drop-down) or several (checkboxes). */
export function OptionsField({ top, record, field, entry, labelId }: FieldProps) {
  const type = fieldType(field.fieldtype);
  const { apply } = useEdits();
  const options = field.radio_options ?? [];
  const selected = new Set((entry?.values ?? []).map((v) => v.template_radio_option_uuid));
  const before = options
    .filter((o) => selected.has(o.template_radio_option_uuid))
    .map((o) => ({ uuid: o.template_radio_option_uuid, name: o.name }));
  const set = (uuid: string, on: boolean) => {
    const o = options.find((x) => x.template_radio_option_uuid === uuid)!;
    apply({
      kind: 'option',
      top,
      record,
      field: { uuid: field.field_uuid, name: field.name },
      option: { uuid, name: o.name },
      on,
      single: !!type.single,
      tags: false,
      before,
    });
  };

  if (type.single && field.fieldtype === 'Single Select') {
    const current = before[0]?.uuid ?? '';
    return (
      <select
        aria-labelledby={labelId}
        value={current}
        onChange={(e) => (e.target.value ? set(e.target.value, true) : current && set(current, false))}
      >
        <option value="">— none —</option>
        {options.map((o) => (
          <option key={o.template_radio_option_uuid} value={o.template_radio_option_uuid}>
            {o.name}
          </option>
        ))}
      </select>
    );
  }
  return (
    <div className="choices" role={type.single ? 'radiogroup' : 'group'} aria-labelledby={labelId}>
      {options.map((o) => (
        <label key={o.template_radio_option_uuid} className="choice">
          <input
            type={type.single ? 'radio' : 'checkbox'}
            name={`${record}-${field.field_uuid}`}
            checked={selected.has(o.template_radio_option_uuid)}
            onChange={(e) => set(o.template_radio_option_uuid, type.single ? true : e.target.checked)}
          />
          {o.name}
        </label>
      ))}
      {type.single && selected.size > 0 && (
        <button type="button" className="link" onClick={() => set(before[0]!.uuid, false)}>
          Clear
        </button>
      )}
    </div>
  );
}

/** Tag trees: select or unselect any tag at any depth. */
export function TagsField({ top, record, field, entry, labelId }: FieldProps) {
  const { apply } = useEdits();
  const selected = new Set((entry?.tags ?? []).map((t) => t.template_tag_uuid));
  const names = itemNames(field);
  // The whole selection before the click: undo and redo apply only while the field still holds it.
  const before = [...selected].map((uuid) => ({ uuid, name: names.get(uuid) ?? '' }));
  const toggle = (t: TemplateTag, on: boolean) =>
    apply({
      kind: 'option',
      top,
      record,
      field: { uuid: field.field_uuid, name: field.name },
      option: { uuid: t.template_tag_uuid, name: t.name },
      on,
      single: false,
      tags: true,
      before,
    });
  const branch = (tags: TemplateTag[]) => (
    <ul>
      {tags.map((t) => (
        <li key={t.template_tag_uuid}>
          <label className="choice">
            <input type="checkbox" checked={selected.has(t.template_tag_uuid)} onChange={(e) => toggle(t, e.target.checked)} />
            {t.name}
          </label>
          {t.tags && t.tags.length > 0 && branch(t.tags)}
        </li>
      ))}
    </ul>
  );
  return (
    <div className="tag-tree" role="group" aria-labelledby={labelId}>
      {branch(field.tags ?? [])}
    </div>
  );
}
