import { pathText } from '../../../../shared/zodMessage.js';
import type { FieldInfo, Schema } from '../schemaCache.js';

// A save's schema errors name the record field an entry is for, not its position in the body:
// `fields[2].value` means nothing to a user, `Field 48a… "Count" (Integer): value` does. Only
// fields the caller may see are named (`shown`): a field's name and type are not told to someone
// who may not edit the record the save is for.

type Path = readonly PropertyKey[];
type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

function fieldWords(schema: Schema, shown: (f: FieldInfo) => boolean, entry: unknown, index: number): string {
  const e = isObj(entry) ? entry : {};
  const own = typeof e.field_uuid === 'string' ? e.field_uuid : '';
  const tpl = typeof e.template_field_uuid === 'string' ? e.template_field_uuid : '';
  const f =
    schema.fieldsByUuid.get(own) ?? (tpl ? [...schema.fields.values()].find((x) => x.templateFieldUuid === tpl && shown(x)) : undefined);
  if (f && shown(f)) return `field ${f.uuid} "${f.name}" (${f.fieldtype})`;
  const named = own || tpl;
  return named ? `field ${named} (fields[${index}])` : `fields[${index}]`;
}

/** The words for a path into a save payload (a record with `fields` and nested `records`). */
export function savePlace(schema: Schema, shown: (f: FieldInfo) => boolean, payload: unknown): (path: Path) => string {
  return (path) => {
    const parts: string[] = [];
    let node: unknown = payload;
    let i = 0;
    while (i + 1 < path.length && (path[i] === 'records' || path[i] === 'fields') && typeof path[i + 1] === 'number') {
      const list = isObj(node) ? node[path[i] as string] : undefined;
      const idx = path[i + 1] as number;
      node = Array.isArray(list) ? list[idx] : undefined;
      if (path[i] === 'records') {
        const uuid = isObj(node) && typeof node.record_uuid === 'string' ? node.record_uuid : '';
        parts.push(uuid ? `child record ${uuid}` : `new child record (records[${idx}])`);
      } else parts.push(fieldWords(schema, shown, node, idx));
      i += 2;
    }
    const rest = pathText(path.slice(i));
    const place = parts.join(', ');
    const sentence = place && place[0]!.toUpperCase() + place.slice(1);
    return sentence ? (rest ? `${sentence}: ${rest}` : sentence) : rest;
  };
}
