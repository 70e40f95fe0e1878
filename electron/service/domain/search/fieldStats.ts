import type { FieldStats, FieldStatsByDataset, StatsRadioOption, StatsTag } from '../../../../shared/schemas/search.js';
import type { TemplateTag } from '../../../../shared/schemas/template.js';
import type { Domain } from '../domain.js';
import { badRequest, notFound } from '../errors.js';
import type { FieldInfo } from '../schemaCache.js';
import { templateField } from '../templates.js';
import type { User } from '../users.js';
import type { RecordSearch } from './recordSearch.js';
import { templateDatasets, templateFields } from './searchKeys.js';
import { selectionStats } from '../../store/selectionStats.js';

// GET /search/field/stats/{template}/{field} and …/statsbydataset/…: how many top-level records
// of the datasets made from a template have each option (or tag) selected, counting only
// records the caller may read (the record-read rule, through RecordSearch.visible).

function resolve(d: Domain, templateUuid: string, fieldUuid: string) {
  const schema = d.schema();
  const dt = schema.datatypesByUuid.get(templateUuid);
  if (!dt) throw notFound('Datatype');
  if (dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
  const own = templateFields([dt], fieldUuid)[0];
  if (!own) throw notFound('Datafield');
  if (own.type.storage !== 'options' && own.type.storage !== 'tags')
    throw badRequest('Getting field stats only makes sense for Radio or Tag fields');
  const datasets = templateDatasets(d, templateUuid);
  return { own, fields: templateFields(datasets, fieldUuid) };
}

/** Every field on a top-level datatype: a record then holds an item at most once. */
const allTopLevel = (d: Domain, fields: FieldInfo[]) => fields.every((f) => d.schema().datatypes.get(f.datatypeId)?.parentId === null);
const kindOf = (own: FieldInfo) => (own.type.storage === 'options' ? 'options' : 'tags');

const itemUuid = (d: Domain, own: FieldInfo, id: number) =>
  own.type.storage === 'options' ? d.schema().options.get(id)?.uuid : d.schema().tags.get(id)?.uuid;

/** Readable top-level records per option or tag uuid. */
function countsPerItem(d: Domain, search: RecordSearch, user: User, own: FieldInfo, fields: FieldInfo[]): Map<string, number> {
  const out = new Map<string, number>();
  if (!fields.length) return out;
  const groups = selectionStats(d.ctx.db).counts(
    kindOf(own),
    fields.map((f) => f.id),
    allTopLevel(d, fields),
  );
  const canRead = search.readable(user);
  for (const g of groups) {
    const uuid = itemUuid(d, own, g.item);
    if (uuid && canRead({ ...g, rid: 0 })) out.set(uuid, (out.get(uuid) ?? 0) + g.n);
  }
  return out;
}

/** Readable top-level records per tag uuid, as sets (a tag's count is the union over its subtree). */
function recordsPerItem(d: Domain, search: RecordSearch, user: User, own: FieldInfo, fields: FieldInfo[]): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  if (!fields.length) return out;
  const hits = selectionStats(d.ctx.db).hits(
    kindOf(own),
    fields.map((f) => f.id),
    allTopLevel(d, fields),
  );
  const canRead = search.readable(user);
  for (const h of hits) {
    const uuid = itemUuid(d, own, h.item);
    if (!uuid || !canRead(h)) continue;
    let set = out.get(uuid);
    if (!set) out.set(uuid, (set = new Set()));
    set.add(h.rid);
  }
  return out;
}

export function fieldStats(d: Domain, search: RecordSearch, user: User, templateUuid: string, fieldUuid: string): FieldStats {
  const { own, fields } = resolve(d, templateUuid, fieldUuid);
  const per = countsPerItem(d, search, user, own, fields);
  const names = new Map<string, string>();
  const label = own.type.storage === 'options' ? 'template_radio_option_uuid' : 'template_tag_uuid';
  for (const f of fields) {
    for (const o of f.options) names.set(o.uuid, o.name);
    const stack = [...f.tags];
    while (stack.length) {
      const t = stack.pop()!;
      names.set(t.uuid, t.name);
      stack.push(...t.children);
    }
  }
  const entries = [...per].map(([uuid, count]) => ({ name: names.get(uuid) ?? uuid, count, uuid }));
  entries.sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  return Object.fromEntries(entries.map((e) => [e.name, { count: e.count, [label]: e.uuid }]));
}

export function fieldStatsByDataset(
  d: Domain,
  search: RecordSearch,
  user: User,
  templateUuid: string,
  fieldUuid: string,
): FieldStatsByDataset {
  const { own, fields } = resolve(d, templateUuid, fieldUuid);
  const out = templateField(own) as FieldStatsByDataset;
  if (own.type.storage === 'options') {
    const per = countsPerItem(d, search, user, own, fields);
    out.radio_options = (out.radio_options ?? []).map((o): StatsRadioOption => ({
      ...o,
      count: per.get(o.template_radio_option_uuid) ?? 0,
    }));
  } else {
    const per = recordsPerItem(d, search, user, own, fields);
    // A tag counts the records carrying it or any tag below it.
    const count = (t: TemplateTag): { tag: StatsTag; recs: Set<number> } => {
      const recs = new Set(per.get(t.template_tag_uuid) ?? []);
      const children = (t.tags ?? []).map(count);
      for (const c of children) for (const r of c.recs) recs.add(r);
      const { tags: _drop, ...rest } = t;
      return { tag: { ...rest, count: recs.size, ...(children.length ? { tags: children.map((c) => c.tag) } : {}) }, recs };
    };
    out.tags = (out.tags ?? []).map((t) => count(t).tag);
  }
  return out;
}
