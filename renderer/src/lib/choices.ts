import { fieldType } from '../../../shared/fieldTypes';
import type { TemplateField, TemplateTag } from '../../../shared/schemas/template';

export interface Choice {
  uuid: string;
  name: string;
}

const flatTags = (tags: TemplateTag[] = [], path = ''): Choice[] =>
  tags.flatMap((t) => [{ uuid: t.template_tag_uuid, name: path + t.name }, ...flatTags(t.tags, `${path}${t.name} › `)]);

/** An option or tag field's choices by uuid; tags flattened with their path (`Group 1 › item 2`). */
export function choicesOf(f: TemplateField): Choice[] {
  return fieldType(f.fieldtype).storage === 'tags'
    ? flatTags(f.tags)
    : (f.radio_options ?? []).map((o) => ({ uuid: o.template_radio_option_uuid, name: o.name }));
}
