import { checkValue, type StoredValue } from '../../../../shared/fieldTypes.js';
import type { CsvColumn, CsvMapping } from '../../../../shared/schemas/csvImport.js';
import { badRequest } from '../errors.js';
import type { DatatypeInfo, FieldInfo, TagInfo } from '../schemaCache.js';
import { withArticle } from '../../../../shared/article.js';

// How CSV columns become field writes. Scalar cells pass the value endpoint's own check
// (checkValue, the one definition writeScalar applies again when writing); options and tags are
// matched by name and an unknown name is refused, never created.

/** Separates several option or tag names in one cell of a multiple-choice field. */
export const MULTI_SEPARATOR = ';';
/** Names a tag by its path when its name alone is ambiguous: "Parent > Child". */
export const TAG_PATH_SEPARATOR = '>';

const IMPORTABLE = new Set(['text', 'integer', 'decimal', 'datetime', 'boolean', 'options', 'tags']);

export const importableFields = (dt: DatatypeInfo): FieldInfo[] => dt.fields.filter((f) => IMPORTABLE.has(f.type.storage));

/** Lower case, letters and digits only: "Sample ID" ~ "sample_id" ~ "SAMPLE-ID". */
const squash = (s: string) =>
  s
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
const key = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

export interface ResolvedColumns {
  columns: CsvColumn[];
  /** Per column index: the field it writes, or null. */
  targets: (FieldInfo | null)[];
}

/** Header names as the preview and the failures show them (blank ones get their position). */
export function columnNames(header: string[]): string[] {
  const names = header.map((h, i) => (h.trim() === '' ? `(column ${i + 1})` : h.trim()));
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) throw badRequest(`The CSV header names column "${n}" twice; rename one of them`);
    seen.add(n);
  }
  return names;
}

/**
 * Which field each column goes to: the mapping's choice where it names the column, else the
 * field whose name (or uuid) matches the header. Every mistake in the mapping is a 400.
 */
export function resolveColumns(dt: DatatypeInfo, names: string[], mapping: CsvMapping = {}): ResolvedColumns {
  const fields = importableFields(dt);
  const byUuid = (u: string) => dt.fields.find((f) => f.uuid === u || f.templateFieldUuid === u);
  for (const col of Object.keys(mapping)) {
    if (!names.includes(col)) throw badRequest(`mapping: the CSV has no column "${col}" (its columns: ${names.join(', ')})`);
  }
  const taken = new Map<number, string>();
  const targets: (FieldInfo | null)[] = names.map(() => null);
  const sources: CsvColumn['source'][] = names.map(() => 'none');
  // The mapping first, so a guess never takes a field the mapping gives to another column.
  names.forEach((name, i) => {
    const chosen = mapping[name];
    if (chosen === undefined) return;
    sources[i] = 'mapping';
    if (chosen === '') return;
    const f = byUuid(chosen);
    if (!f) throw badRequest(`mapping: "${chosen}" (for column "${name}") is not a field of dataset ${dt.uuid}`);
    if (!IMPORTABLE.has(f.type.storage)) {
      throw badRequest(`mapping: field "${f.name}" is ${withArticle(f.fieldtype)} field, which a CSV cannot fill (column "${name}")`);
    }
    if (taken.has(f.id)) throw badRequest(`mapping: columns "${taken.get(f.id)}" and "${name}" both go to field "${f.name}"`);
    taken.set(f.id, name);
    targets[i] = f;
  });
  names.forEach((name, i) => {
    if (sources[i] === 'mapping') return;
    const want = squash(name);
    const f = want === '' ? undefined : fields.find((x) => !taken.has(x.id) && (squash(x.name) === want || x.uuid === name.trim()));
    if (!f) return;
    taken.set(f.id, name);
    targets[i] = f;
    sources[i] = 'guess';
  });
  const columns = names.map((name, i) => ({ name, field_uuid: targets[i]?.uuid ?? null, source: sources[i]! }));
  return { columns, targets };
}

/** What one cell writes: a value as stored, or the option/tag ids selected (tags with their ancestors). */
export type CellWrite =
  { kind: 'value'; field: FieldInfo; stored: StoredValue } | { kind: 'options' | 'tags'; field: FieldInfo; ids: number[] };

type Converter = (cell: string) => { write: CellWrite } | { error: string } | null;

function tagPaths(tags: TagInfo[], prefix = '', into = new Map<string, TagInfo[]>()): Map<string, TagInfo[]> {
  for (const t of tags) {
    const path = prefix ? `${prefix} ${TAG_PATH_SEPARATOR} ${t.name}` : t.name;
    for (const k of new Set([key(t.name), key(path)])) into.set(k, [...(into.get(k) ?? []), t]);
    tagPaths(t.children, path, into);
  }
  return into;
}

const splitNames = (cell: string) =>
  cell
    .split(MULTI_SEPARATOR)
    .map((p) => p.trim())
    .filter(Boolean);

const listNames = (names: string[]) =>
  names.length <= 12
    ? names.map((n) => `"${n}"`).join(', ')
    : `${names
        .slice(0, 12)
        .map((n) => `"${n}"`)
        .join(', ')}, …`;

/** The names a cell may use for an option or tag field (for the dialog's hints). */
export function choicesOf(f: FieldInfo): string[] | undefined {
  if (f.type.storage === 'options') return f.options.map((o) => o.name);
  if (f.type.storage === 'tags') {
    const paths = tagPaths(f.tags);
    const out: string[] = [];
    const walk = (tags: TagInfo[], prefix: string) => {
      for (const t of tags) {
        const path = prefix ? `${prefix} ${TAG_PATH_SEPARATOR} ${t.name}` : t.name;
        out.push(paths.get(key(t.name))!.length > 1 ? path : t.name);
        walk(t.children, path);
      }
    };
    walk(f.tags, '');
    return out;
  }
  return undefined;
}

/** One converter per field, built once per import. An empty cell writes nothing. */
export function converterFor(f: FieldInfo): Converter {
  const storage = f.type.storage;
  if (storage === 'options') {
    const byName = new Map<string, number>();
    for (const o of f.options) if (!byName.has(key(o.name))) byName.set(key(o.name), o.id);
    const names = f.options.map((o) => o.name);
    return (cell) => {
      const whole = cell.trim();
      if (whole === '') return null;
      // A single-choice cell is one name (commas and semicolons included); so is any cell that
      // is exactly one option's name.
      const parts = f.type.single || byName.has(key(whole)) ? [whole] : splitNames(whole);
      const ids: number[] = [];
      for (const p of parts) {
        const id = byName.get(key(p));
        if (id === undefined)
          return { error: `"${p}" is not an option of ${f.fieldtype} field "${f.name}" (options: ${listNames(names)})` };
        if (!ids.includes(id)) ids.push(id);
      }
      return { write: { kind: 'options', field: f, ids } };
    };
  }
  if (storage === 'tags') {
    const paths = tagPaths(f.tags);
    const byId = new Map([...f.tagsByUuid.values()].map((t) => [t.id, t]));
    const pathKey = (p: string) => p.split(TAG_PATH_SEPARATOR).map(key).join(` ${TAG_PATH_SEPARATOR} `);
    return (cell) => {
      const whole = cell.trim();
      if (whole === '') return null;
      const parts = paths.has(pathKey(whole)) ? [whole] : splitNames(whole);
      const ids: number[] = [];
      for (const p of parts) {
        const found = paths.get(pathKey(p));
        if (!found) return { error: `"${p}" is not a tag of field "${f.name}"` };
        if (found.length > 1) {
          return {
            error: `tag name "${p}" is ambiguous in field "${f.name}": write it as its path, e.g. "Parent ${TAG_PATH_SEPARATOR} ${p}"`,
          };
        }
        // Selecting a tag selects its ancestors, as the save endpoint does.
        for (let t: TagInfo | undefined = found[0]; t; t = t.parentId === null ? undefined : byId.get(t.parentId)) {
          if (!ids.includes(t.id)) ids.push(t.id);
        }
      }
      return { write: { kind: 'tags', field: f, ids } };
    };
  }
  const boolean = storage === 'boolean';
  return (cell) => {
    if (cell === '') return null;
    // Text is kept as typed; numbers, dates and booleans lose surrounding blanks. A CSV has no
    // JSON types: true/false are the value endpoint's booleans.
    const trimmed = storage === 'text' ? cell : cell.trim();
    const lower = boolean ? trimmed.toLowerCase() : '';
    const input = lower === 'true' ? true : lower === 'false' ? false : trimmed;
    const check = checkValue(f.type, input);
    return check.ok ? { write: { kind: 'value', field: f, stored: check.stored } } : { error: check.message };
  };
}
