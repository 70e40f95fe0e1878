import type { FieldEntry, OdrRecord } from '../../../shared/schemas/record.js';

/** One field of one record in a tree, as the merge compares it. */
export interface FieldState {
  record: string;
  field: string;
  name: string;
  /** Comparable form: scalar as text, option/tag sets as sorted uuids. */
  key: string;
  entry: FieldEntry;
}

function comparable(e: FieldEntry): string | null {
  if (e.files) return null; // files are not merged field by field
  if (e.values)
    return `opts:${e.values
      .map((v) => v.template_radio_option_uuid)
      .sort()
      .join(',')}`;
  if (e.tags)
    return `tags:${e.tags
      .map((t) => t.template_tag_uuid)
      .sort()
      .join(',')}`;
  if (e.selected !== undefined) return `bool:${e.selected}`;
  if (e.value === undefined) return null;
  return `val:${e.value === null ? '' : String(e.value)}`;
}

/**
 * Field states by record tree. A push compares the same copies several times (the conflict check,
 * whether an option is still selected here, the settle's comparison with the server's answer):
 * each tree's states are built once. The trees are never changed once read (server copies, bases
 * and local renders are parsed afresh), nor are the maps handed out.
 */
const built = new WeakMap<OdrRecord, ReadonlyMap<string, FieldState>>();

/** Every mergeable field of a record tree, keyed `record|field`. */
export function fieldStates(rec: OdrRecord): ReadonlyMap<string, FieldState> {
  let states = built.get(rec);
  if (!states) built.set(rec, (states = collect(rec, new Map())));
  return states;
}

function collect(rec: OdrRecord, out: Map<string, FieldState>): Map<string, FieldState> {
  for (const e of rec.fields) {
    const key = comparable(e);
    if (key !== null)
      out.set(`${rec.record_uuid}|${e.field_uuid}`, { record: rec.record_uuid, field: e.field_uuid, name: e.field_name, key, entry: e });
  }
  for (const c of rec.records ?? []) collect(c, out);
  return out;
}

/** An empty field compares equal to a missing one. */
export const EMPTY_KEYS = new Set(['val:', 'bool:0', 'opts:', 'tags:']);
export const keyOf = (m: ReadonlyMap<string, FieldState>, k: string) => m.get(k)?.key ?? '';
export const same = (a: string, b: string) => a === b || ((EMPTY_KEYS.has(a) || a === '') && (EMPTY_KEYS.has(b) || b === ''));

/** Human-readable value of a field state for the conflicts view. */
export function display(s: FieldState | undefined): string {
  if (!s) return '';
  const e = s.entry;
  if (e.values) return e.values.map((v) => v.name).join(', ');
  if (e.tags) return e.tags.map((t) => t.name).join(', ');
  if (e.selected !== undefined) return e.selected ? 'yes' : 'no';
  return e.value === null || e.value === undefined ? '' : String(e.value);
}

export function childrenOf(rec: OdrRecord): OdrRecord[] {
  const out: OdrRecord[] = [];
  const walk = (r: OdrRecord) => {
    for (const c of r.records ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(rec);
  return out;
}
