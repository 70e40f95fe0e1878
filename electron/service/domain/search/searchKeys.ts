import type { Domain } from '../domain.js';
import { jsonDepth, MAX_JSON_DEPTH, tooDeepMessage } from '../../../../shared/jsonDepth.js';
import { badRequest, notFound } from '../errors.js';
import { canViewDatatype } from '../permissions.js';
import type { DatatypeInfo, FieldInfo, TagInfo } from '../schemaCache.js';
import type { User } from '../users.js';
import type { Comparison, Criteria, Term, TextMatch } from './recordSearch.js';
import { datasetHidden } from '../rights.js';

// The real server's search keys (SearchKeyService in OpenDataRepository/data-publisher):
// url-safe base64 of a JSON object. Dataset keys name fields by numeric id (`{"dt_id":"3",
// "gen":"…", "18":"text", "19_s":"2020-01-01", "20":"5,-6"}`); template keys name them by uuid
// (`{"template_uuid", "general", "fields":[{template_field_uuid, value | selected_options |
// selected_tags | before | after | filename}]}`). Every malformed part is a 400 that names it.

const DATE_ONLY_RE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const MAX_KEY = 65536;
const MAX_TERMS = 200;
const invalid = (m: string) => badRequest(`Invalid search key: ${m}`);

/** base64 or base64url, padding optional, as PHP's lenient base64_decode accepts. */
export function decodeKey(key: string): Record<string, unknown> {
  if (key.length > MAX_KEY) throw invalid(`longer than ${MAX_KEY} characters`);
  if (!/^[A-Za-z0-9+/_=-]*$/.test(key)) throw invalid('not base64');
  const json = Buffer.from(key.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw badRequest('Invalid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid('must be a JSON object');
  if (jsonDepth(parsed) > MAX_JSON_DEPTH) throw badRequest(tooDeepMessage('The search key'));
  return parsed as Record<string, unknown>;
}

/** The inverse, as the real server writes keys (sorted keys, url-safe, unpadded). */
export function encodeKey(params: Record<string, unknown>): string {
  const sorted = Object.fromEntries(
    Object.keys(params)
      .sort()
      .map((k) => [k, params[k]]),
  );
  return Buffer.from(JSON.stringify(sorted)).toString('base64url');
}

const str = (v: unknown, what: string): string => {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  throw invalid(`${what} must be a string`);
};

/** Text criteria as ODR's search box reads them: `""` empty, `!""` filled, `"x"` exact, else contains. */
export function textMatch(raw: string): TextMatch {
  const v = raw.trim();
  if (v === '""') return { mode: 'empty' };
  if (v === '!""') return { mode: 'filled' };
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) return { mode: 'exact', text: v.slice(1, -1) };
  return { mode: 'contains', text: v };
}

/** Number criteria: `5`, `>4 <5`, `>=1.5`; several space-separated comparisons all apply. */
function comparisons(raw: string, f: FieldInfo): Comparison[] {
  const parts = raw.trim().split(/\s+/).filter(Boolean);
  if (!parts.length) throw invalid(`empty value for field ${f.uuid}`);
  return parts.map((p) => {
    const m = /^(<=|>=|<|>|=)?(-?\d+(?:\.\d+)?)$/.exec(p);
    if (!m) throw invalid(`"${p}" is not a number or a comparison (>, <, >=, <=) for ${f.fieldtype} field ${f.uuid}`);
    return { op: (m[1] ?? '=') as Comparison['op'], value: Number(m[2]) };
  });
}

/** One field's value criterion, for every type that has a value. */
export function valueTerm(fields: FieldInfo[], raw: string): Term {
  const f = fields[0]!;
  switch (f.type.storage) {
    case 'text':
      return { kind: 'text', fields, match: textMatch(raw) };
    case 'integer':
    case 'decimal': {
      const t = textMatch(raw);
      if (t.mode === 'empty' || t.mode === 'filled') return { kind: 'text', fields, match: t };
      return { kind: 'compare', fields, numeric: true, all: comparisons(raw, f) };
    }
    case 'boolean': {
      const v = raw.trim();
      if (v !== '0' && v !== '1') throw invalid(`Boolean field ${f.uuid} takes "1" or "0", not "${v}"`);
      return { kind: 'boolean', fields, selected: v === '1' };
    }
    case 'datetime': {
      const t = textMatch(raw);
      if (t.mode === 'empty' || t.mode === 'filled') return { kind: 'text', fields, match: t };
      if (!DATE_ONLY_RE.test(raw.trim())) throw invalid(`"${raw}" is not a valid date (YYYY-MM-DD) for field ${f.uuid}`);
      return { kind: 'compare', fields, numeric: false, all: [{ op: '=', value: raw.trim() }] };
    }
    case 'files': {
      const t = textMatch(raw);
      if (t.mode === 'empty' || t.mode === 'filled') return { kind: 'file', fields, has: t.mode === 'filled' };
      return { kind: 'file', fields, has: true, name: t.text };
    }
    default:
      throw invalid(`field ${f.uuid} (${f.fieldtype}) cannot be searched by value`);
  }
}

export function dateTerm(fields: FieldInfo[], after: string | undefined, before: string | undefined): Term {
  const all: Comparison[] = [];
  for (const [v, op] of [
    [after, '>='],
    [before, '<='],
  ] as const) {
    if (v === undefined || v === '') continue;
    if (!DATE_ONLY_RE.test(v)) throw invalid(`"${v}" is not a valid date`);
    all.push({ op, value: v });
  }
  return { kind: 'compare', fields, numeric: false, all };
}

export const tagAndDescendants = (t: TagInfo, into: number[] = []): number[] => {
  into.push(t.id);
  for (const c of t.children) tagAndDescendants(c, into);
  return into;
};

/** Dataset search key (GET /dataset/search/{key}/…): `dt_id` and fields by numeric id. */
export function datasetKeyCriteria(d: Domain, user: User, key: Record<string, unknown>): Criteria {
  const schema = d.schema();
  const dtId = key.dt_id;
  if (dtId === undefined || !/^\d+$/.test(String(dtId))) throw invalid('missing "dt_id"');
  const start = schema.datatypes.get(Number(dtId));
  if (!start || start.isMaster) throw notFound('Datatype');
  const dt = start.top;
  if (!canViewDatatype(user, dt, d.now())) throw datasetHidden(dt);
  if (key.gen !== undefined && key.gen_lim !== undefined) throw invalid('only allowed to have at most one of "gen" or "gen_lim"');
  const inTree = new Set(schema.subtreeIds(dt));
  const fieldById = (id: string): FieldInfo => {
    const f = schema.fields.get(Number(id));
    if (!f || !inTree.has(f.datatypeId)) throw invalid(`invalid datafield ${id}`);
    return f;
  };
  const crit: Criteria = { datasets: [dt], terms: [], merge: 'AND' };
  const dates = new Map<string, { s?: string; e?: string }>();
  for (const [k, v] of Object.entries(key)) {
    if (k === 'dt_id' || k === 'sort_by') continue; // the real route ignores the key's sort order
    if (k === 'gen' || k === 'gen_lim') {
      crit.general = str(v, k);
      continue;
    }
    if (k === 'merge') {
      if (v !== 'AND' && v !== 'OR') throw invalid('"merge" should be either "AND" or "OR"');
      crit.merge = v;
      continue;
    }
    if (/^\d+$/.test(k)) {
      const f = fieldById(k);
      const raw = str(v, k);
      if (raw.trim() === '') continue; // blank entries are dropped, as the real server does
      if (f.type.storage === 'options' || f.type.storage === 'tags') crit.terms.push(selectionTerm(f, raw));
      else crit.terms.push(valueTerm([f], raw));
      continue;
    }
    const m = /^(\d+)_(s|e)$/.exec(k);
    if (m) {
      const f = fieldById(m[1]!);
      if (f.type.storage !== 'datetime') throw invalid(`"${k}": field ${m[1]} is not a DateTime field`);
      if (key[m[1]!] !== undefined && String(key[m[1]!]).trim() !== '')
        throw invalid('Unable to simultaneously search for the empty string and a date in the same field');
      const range = dates.get(m[1]!) ?? {};
      range[m[2] as 's' | 'e'] = str(v, k);
      dates.set(m[1]!, range);
      continue;
    }
    throw invalid(`unrecognized parameter "${k}"`);
  }
  for (const [id, r] of dates) {
    const t = dateTerm([fieldById(id)], r.s, r.e);
    if (t.kind === 'compare' && t.all.length) crit.terms.push(t);
  }
  if (crit.terms.length > MAX_TERMS) throw invalid(`more than ${MAX_TERMS} field criteria`);
  return crit;
}

/** `"5,-6,~7,*8"`: option or tag ids; `-` not selected, `~`/`*` treated as selected. */
function selectionTerm(f: FieldInfo, raw: string): Term {
  const kind = f.type.storage === 'options' ? 'options' : 'tags';
  const any: number[] = [];
  const none: number[] = [];
  for (const part of raw.split(',')) {
    const p = part.trim();
    const m = /^([-~*]?)(\d+)$/.exec(p);
    if (!m) throw invalid(`"${p}" is not a ${kind === 'options' ? 'radio option' : 'tag'} id`);
    const id = Number(m[2]);
    if (kind === 'options') {
      if (!f.options.some((o) => o.id === id)) throw invalid(`invalid radio option ${id}`);
      (m[1] === '-' ? none : any).push(id);
    } else {
      const tag = findTag(f.tags, (t) => t.id === id);
      if (!tag) throw invalid(`invalid tag ${id}`);
      (m[1] === '-' ? none : any).push(...tagAndDescendants(tag));
    }
  }
  return { kind, fields: [f], any, none };
}

function findTag(tags: TagInfo[], pred: (t: TagInfo) => boolean): TagInfo | undefined {
  const stack = [...tags];
  while (stack.length) {
    const t = stack.pop()!;
    if (pred(t)) return t;
    stack.push(...t.children);
  }
  return undefined;
}

/** The datasets a template key searches: those made from the template, or the dataset itself. */
export function templateDatasets(d: Domain, uuid: string): DatatypeInfo[] {
  const schema = d.schema();
  const dt = schema.datatypesByUuid.get(uuid);
  const derived = schema.topLevel().filter((x) => !x.isMaster && (x.uuid === uuid || x.masterUuid === uuid));
  if (!dt && derived.length === 0) throw notFound('Datatype');
  if (dt && dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
  return derived;
}

/** Every field of `datasets` that is, or was cloned from, the template field `uuid`. */
export function templateFields(datasets: DatatypeInfo[], uuid: string): FieldInfo[] {
  const out: FieldInfo[] = [];
  const walk = (dt: DatatypeInfo) => {
    for (const f of dt.fields) if (f.uuid === uuid || f.templateFieldUuid === uuid) out.push(f);
    dt.children.forEach(walk);
  };
  datasets.forEach(walk);
  return out;
}

const asArray = (v: unknown, what: string): unknown[] => {
  if (!Array.isArray(v)) throw invalid(`"${what}" must be an array`);
  if (v.length > MAX_TERMS) throw invalid(`"${what}" has more than ${MAX_TERMS} entries`);
  return v;
};
const asObject = (v: unknown, what: string): Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalid(`${what} must be an object`);
  return v as Record<string, unknown>;
};

/** Template search key (GET /search/{key}, POST /search): datasets made from a template. */
export function templateKeyCriteria(d: Domain, key: Record<string, unknown>): Criteria {
  const tu = key.template_uuid;
  if (tu === undefined) throw invalid('missing "template_uuid"');
  if (typeof tu !== 'string' || !/^[a-z0-9]+$/.test(tu)) throw invalid('"template_uuid" is in wrong format');
  const datasets = templateDatasets(d, tu);
  const crit: Criteria = { datasets, terms: [], merge: 'AND' };
  if (key.general !== undefined) crit.general = str(key.general, 'general');
  if (key.sort_by !== undefined) {
    const sort = asArray(key.sort_by, 'sort_by');
    if (sort.length > 1) throw invalid('Unable to sort by multiple fields at the moment');
    for (const s of sort) {
      const o = asObject(s, '"sort_by" entry');
      if (o.dir !== 'asc' && o.dir !== 'desc') throw invalid(`received invalid sort direction "${String(o.dir)}"`);
      if (typeof o.template_field_uuid !== 'string') throw invalid('missing "template_field_uuid" inside "sort_by"');
    }
  }
  for (const k of Object.keys(key)) {
    if (!['template_uuid', 'template_name', 'field_name', 'name', 'general', 'sort_by', 'fields'].includes(k))
      throw invalid(`unrecognized parameter "${k}"`);
  }
  const list = key.fields === undefined ? [] : asArray(key.fields, 'fields');
  list.forEach((entry, num) => {
    const df = asObject(entry, `"fields" offset ${num}`);
    if (typeof df.template_field_uuid !== 'string') throw invalid(`missing "template_field_uuid" inside "fields", offset ${num}`);
    const fu = df.template_field_uuid;
    const fields = templateFields(datasets, fu);
    const f = fields[0];
    if (!f) throw invalid(`invalid datafield ${fu}`);
    const storage = f.type.storage;
    if (df.value !== undefined) {
      if (storage === 'options' || storage === 'tags' || storage === 'files' || storage === 'datetime')
        throw invalid(`"value" defined for a "${f.fieldtype}" datafield`);
      const raw = str(df.value, 'value');
      if (raw.trim() !== '') crit.terms.push(valueTerm(fields, raw));
    } else if (df.selected_options !== undefined) {
      if (storage !== 'options') throw invalid(`"selected_options" defined for a "${f.fieldtype}" datafield, expected a Radio datafield`);
      const ids: number[] = [];
      for (const o of asArray(df.selected_options, 'selected_options')) {
        const ou = asObject(o, 'selected option').template_radio_option_uuid;
        if (typeof ou !== 'string') throw invalid(`missing key "template_radio_option_uuid" for datafield ${fu}`);
        const found = fields.flatMap((x) => x.options.filter((op) => op.uuid === ou).map((op) => op.id));
        if (!found.length) throw invalid(`radio option "${ou}" does not belong to datafield ${fu}`);
        ids.push(...found);
      }
      if (ids.length) crit.terms.push({ kind: 'options', fields, any: ids, none: [] });
    } else if (df.selected_tags !== undefined) {
      if (storage !== 'tags') throw invalid(`"selected_tags" defined for a "${f.fieldtype}" datafield, expected a Tag datafield`);
      const ids: number[] = [];
      for (const o of asArray(df.selected_tags, 'selected_tags')) {
        const tu2 = asObject(o, 'selected tag').template_tag_uuid;
        if (typeof tu2 !== 'string') throw invalid(`missing key "template_tag_uuid" for datafield ${fu}`);
        const found = fields.flatMap((x) => {
          const t = findTag(x.tags, (tg) => tg.uuid === tu2);
          return t ? tagAndDescendants(t) : [];
        });
        if (!found.length) throw invalid(`tag "${tu2}" does not belong to datafield ${fu}`);
        ids.push(...found);
      }
      if (ids.length) crit.terms.push({ kind: 'tags', fields, any: ids, none: [] });
    } else if (df.before !== undefined || df.after !== undefined) {
      if (storage !== 'datetime')
        throw invalid(
          `"${df.before !== undefined ? 'before' : 'after'}" defined for a "${f.fieldtype}" datafield, expected a Datetime datafield`,
        );
      crit.terms.push(
        dateTerm(
          fields,
          df.after === undefined ? undefined : str(df.after, 'after'),
          df.before === undefined ? undefined : str(df.before, 'before'),
        ),
      );
    } else if (df.filename !== undefined) {
      if (storage !== 'files') throw invalid(`"filename" defined for a "${f.fieldtype}" datafield, expected a File or Image datafield`);
      crit.terms.push(valueTerm(fields, str(df.filename, 'filename')));
    } else if (df.has_file !== undefined) {
      if (storage !== 'files') throw invalid(`"has_file" defined for a "${f.fieldtype}" datafield, expected a File or Image datafield`);
      crit.terms.push({ kind: 'file', fields, has: df.has_file === true || df.has_file === 1 || df.has_file === '1' });
    } else {
      throw invalid(`no search criteria defined for datafield ${fu}`);
    }
  });
  return crit;
}

/**
 * POST /dataset/{uuid}/search: `{"fields":[{field_uuid, value}]}`. Fields by uuid or template
 * field uuid; options and tags by uuid or name; every other type as in a search key.
 */
export function fieldListCriteria(dt: DatatypeInfo, body: { fields: { field_uuid: string; value: unknown }[] }): Criteria {
  const crit: Criteria = { datasets: [dt], terms: [], merge: 'AND' };
  if (body.fields.length > MAX_TERMS) throw badRequest(`fields: at most ${MAX_TERMS} entries`);
  body.fields.forEach((entry, i) => {
    const fields = templateFields([dt], entry.field_uuid);
    const f = fields[0];
    if (!f) throw badRequest(`fields.${i}.field_uuid: ${entry.field_uuid} is not a field of dataset ${dt.uuid}`);
    const values = Array.isArray(entry.value) ? entry.value : [entry.value];
    if (f.type.storage === 'options' || f.type.storage === 'tags') {
      const ids: number[] = [];
      for (const v of values) {
        const want = String(v).trim().toLowerCase();
        const found =
          f.type.storage === 'options'
            ? f.options.filter((o) => o.uuid === want || o.name.toLowerCase() === want).map((o) => o.id)
            : (() => {
                const t = findTag(f.tags, (tg) => tg.uuid === want || tg.name.toLowerCase() === want);
                return t ? tagAndDescendants(t) : [];
              })();
        if (!found.length) throw badRequest(`fields.${i}.value: "${String(v)}" is not an option of field ${f.uuid}`);
        ids.push(...found);
      }
      crit.terms.push({ kind: f.type.storage, fields, any: ids, none: [] });
      return;
    }
    if (values.length !== 1 || (typeof values[0] !== 'string' && typeof values[0] !== 'number' && typeof values[0] !== 'boolean')) {
      throw badRequest(`fields.${i}.value: a string or number is required for ${f.fieldtype} field ${f.uuid}`);
    }
    const raw = typeof values[0] === 'boolean' ? (values[0] ? '1' : '0') : String(values[0]);
    if (raw.trim() === '') return;
    try {
      crit.terms.push(valueTerm(fields, raw));
    } catch (e) {
      throw badRequest(`fields.${i}.value: ${(e as Error).message.replace(/^Invalid search key: /, '')}`);
    }
  });
  return crit;
}
