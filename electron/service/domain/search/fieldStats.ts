import type { FieldStats, FieldStatsByDataset, StatsRadioOption, StatsTag } from '../../../../shared/schemas/search.js';
import type { TemplateTag } from '../../../../shared/schemas/template.js';
import type { Domain } from '../domain.js';
import { badRequest, notFound } from '../errors.js';
import type { FieldInfo } from '../schemaCache.js';
import { templateField } from '../templates.js';
import type { User } from '../users.js';
import type { RecordSearch } from './recordSearch.js';
import { templateDatasets, templateFields } from './searchKeys.js';

// GET /search/field/stats/{template}/{field} and …/statsbydataset/…: how many top-level records
// of the datasets made from a template have each option (or tag) selected, counting only
// records the caller may read (the record-read rule, through RecordSearch.visible).

interface Hit {
  item: number;
  rid: number;
  datatype_id: number;
  created_by: number | null;
  public_date: string;
}

function resolve(d: Domain, templateUuid: string, fieldUuid: string) {
  const schema = d.schema();
  const dt = schema.datatypesByUuid.get(templateUuid);
  if (!dt) throw notFound('Datatype');
  if (dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
  const own = templateFields([dt], fieldUuid)[0];
  if (!own) throw notFound('Datafield');
  if (own.type.storage !== 'options' && own.type.storage !== 'tags') throw badRequest('Getting field stats only makes sense for Radio or Tag fields');
  const datasets = templateDatasets(d, templateUuid);
  return { own, fields: templateFields(datasets, fieldUuid) };
}

/** Distinct readable top-level records per option or tag uuid. */
function recordsPerItem(d: Domain, search: RecordSearch, user: User, own: FieldInfo, fields: FieldInfo[]): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  if (!fields.length) return out;
  const options = own.type.storage === 'options';
  const table = options ? 'option_selections' : 'tag_selections';
  const col = options ? 'option_id' : 'tag_id';
  const hits = d.ctx.db.prepare(`
    SELECT s.${col} AS item, t.rid, t.datatype_id, t.created_by, t.public_date
    FROM ${table} s JOIN records c ON c.rid = s.record_rid JOIN records t ON t.rid = c.top_rid
    WHERE s.datafield_id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(fields.map((f) => f.id))) as Hit[];
  const schema = d.schema();
  for (const h of search.visible(user, hits)) {
    const uuid = options ? schema.options.get(h.item)?.uuid : schema.tags.get(h.item)?.uuid;
    if (!uuid) continue;
    let set = out.get(uuid);
    if (!set) out.set(uuid, (set = new Set()));
    set.add(h.rid);
  }
  return out;
}

export function fieldStats(d: Domain, search: RecordSearch, user: User, templateUuid: string, fieldUuid: string): FieldStats {
  const { own, fields } = resolve(d, templateUuid, fieldUuid);
  const per = recordsPerItem(d, search, user, own, fields);
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
  const entries = [...per].map(([uuid, recs]) => ({ name: names.get(uuid) ?? uuid, count: recs.size, uuid }));
  entries.sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  return Object.fromEntries(entries.map((e) => [e.name, { count: e.count, [label]: e.uuid }]));
}

export function fieldStatsByDataset(d: Domain, search: RecordSearch, user: User, templateUuid: string, fieldUuid: string): FieldStatsByDataset {
  const { own, fields } = resolve(d, templateUuid, fieldUuid);
  const per = recordsPerItem(d, search, user, own, fields);
  const out = templateField(own) as FieldStatsByDataset;
  if (own.type.storage === 'options') {
    out.radio_options = (out.radio_options ?? []).map((o): StatsRadioOption => ({ ...o, count: per.get(o.template_radio_option_uuid)?.size ?? 0 }));
  } else {
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
