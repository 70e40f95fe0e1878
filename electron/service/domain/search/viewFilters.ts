import { ViewFilters, type ViewFilter } from '../../../../shared/schemas/view.js';
import { badRequest } from '../errors.js';
import { pathText, zodMessage } from '../../../../shared/zodMessage.js';
import type { DatatypeInfo, FieldInfo } from '../schemaCache.js';
import type { Term } from './recordSearch.js';
import { dateTerm, tagAndDescendants } from './searchKeys.js';
import { withArticle } from '../../../../shared/article.js';

// The record list's per-field filters become the same search terms the ODR search routes use
// (recordSearch.ts): one search implementation, whichever way a search is asked for.

const NUMBER_RE = /^-?\d+(\.\d+)?$/;

/** `filters` of a list request: JSON text of ViewFilter[]; every problem is a 400 naming it. */
export function parseFilters(raw: string | undefined): ViewFilter[] {
  if (raw === undefined || raw.trim() === '') return [];
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw badRequest('filters must be a JSON array of filters');
  }
  const r = ViewFilters.safeParse(json);
  if (!r.success) throw badRequest(zodMessage(r.error, { input: json, place: (path) => pathText(path, 'filters') }));
  return r.data;
}

/** A range bound as text (a JSON number as its digits); blank means no bound. */
const boundText = (v: string | number | undefined): string | undefined => (typeof v === 'number' ? String(v) : v?.trim() || undefined);

function fieldOf(dt: DatatypeInfo, uuid: string, at: string): FieldInfo {
  const f = dt.fieldsByUuid.get(uuid) ?? dt.fields.find((x) => x.templateFieldUuid === uuid);
  if (!f) throw badRequest(`${at}.field: ${uuid} is not a field of dataset ${dt.uuid}`);
  return f;
}

/** One filter as a search term, checked against the dataset's fields and options. */
function termOf(dt: DatatypeInfo, flt: ViewFilter, at: string): Term {
  if (flt.kind === 'public') return { kind: 'public', public: flt.public };
  const f = fieldOf(dt, flt.field, at);
  const s = f.type.storage;
  const wrongType = (what: string) => badRequest(`${at}: ${f.name} is ${withArticle(f.fieldtype)} field, not ${what}`);
  switch (flt.kind) {
    case 'text':
      if (s !== 'text') throw wrongType('a text field');
      return { kind: 'text', fields: [f], match: { mode: 'contains', text: String(flt.contains) } };
    case 'range': {
      const min = boundText(flt.min);
      const max = boundText(flt.max);
      if (min === undefined && max === undefined) throw badRequest(`${at}: a range needs min or max`);
      if (s === 'datetime') {
        for (const [k, v] of [
          ['min', min],
          ['max', max],
        ] as const)
          if (v !== undefined && (typeof flt[k] === 'number' || !/^\d{4}-\d{2}-\d{2}$/.test(v)))
            throw badRequest(
              `${at}.${k}: ${JSON.stringify(flt[k])} is not a date: ${f.name} is a DateTime field, so its bounds are "YYYY-MM-DD" strings`,
            );
        return dateTerm([f], min, max);
      }
      if (s !== 'integer' && s !== 'decimal') throw wrongType('a number or date field');
      const all: { op: '>=' | '<='; value: number }[] = [];
      for (const [k, v, op] of [
        ['min', min, '>='],
        ['max', max, '<='],
      ] as const) {
        if (v === undefined) continue;
        const given = flt[k];
        if (typeof given === 'number') all.push({ op, value: given });
        else if (NUMBER_RE.test(v)) all.push({ op, value: Number(v) });
        else throw badRequest(`${at}.${k}: "${v}" is not a number`);
      }
      return { kind: 'compare', fields: [f], numeric: true, all };
    }
    case 'option': {
      if (s !== 'options' && s !== 'tags') throw wrongType('an option or tag field');
      const ids: number[] = [];
      for (const u of flt.options) {
        if (s === 'options') {
          const o = f.optionsByUuid.get(u);
          if (!o) throw badRequest(`${at}.options: ${u} is not an option of ${f.name}`);
          ids.push(o.id);
        } else {
          const t = f.tagsByUuid.get(u);
          if (!t) throw badRequest(`${at}.options: ${u} is not a tag of ${f.name}`);
          tagAndDescendants(t, ids);
        }
      }
      return { kind: s, fields: [f], any: flt.not ? [] : ids, none: flt.not ? ids : [] };
    }
    case 'file':
      if (s !== 'files') throw wrongType('a file or image field');
      return { kind: 'file', fields: [f], has: flt.has };
  }
}

export function filterTerms(dt: DatatypeInfo, filters: ViewFilter[]): Term[] {
  return filters.map((f, i) => termOf(dt, f, `filters[${i}]`));
}
