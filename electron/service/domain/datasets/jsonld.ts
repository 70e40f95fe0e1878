import { isPublicAt } from '../../../../shared/dates.js';
import type { JsonLdDataset, JsonLdRecord, JsonLdValue } from '../../../../shared/schemas/jsonld.js';
import type { FieldEntry, OdrRecord } from '../../../../shared/schemas/record.js';
import { datasetStore } from '../../store/datasets.js';
import type { Domain } from '../domain.js';
import { badRequest } from '../errors.js';
import type { DatatypeInfo } from '../schemaCache.js';
import type { User } from '../users.js';

// GET /jsonld/{uuid}. The real server builds schema.org Dataset metadata from the dataset's
// metadata record, reading fields of its own metadata master template by their template field
// uuids (below); we do the same when such a record exists, fall back to the dataset's own name
// and description, and add the fields as variables and the records' values. Everything comes
// from records rendered for the caller by the record-read path (a page of readable top-level
// records, each filtered as GET /dataset/record filters it), so it shows exactly what the caller
// may read. The real server renders as an anonymous user; here it is the caller.

const META = {
  name: '23db96d4f26a46af7de57a3da752',
  description: '64caf7e390296f72d70bdf84a853',
  version: 'c05b2d1f01fac1b726a971af178b',
  url: '84ad17c89dbeecad2eda27faa3c8',
  free: 'df1e203fee2f12fb7d53c0ebccb3',
  creators: ['a88ecce7c65356de38dd982db8c8', '59414503bf4fa640df1b0a2172b9'],
  keywords: ['546da23100565304ed804c317597', 'bd31f72545adea8b586203a70e02'],
  licenses: ['02dd484abb6232a317e7de257110', '7270156ddab75822052466f50bd9'],
} as const;

export const JSONLD_DEFAULT_LIMIT = 1000;

const fieldOf = (rec: OdrRecord | undefined, uuid: string): FieldEntry | undefined =>
  rec?.fields.find((f) => f.template_field_uuid === uuid || f.field_uuid === uuid);

/** A field's value as the real server reads it: the value, else the first file's href. */
function metaValue(rec: OdrRecord | undefined, uuid: string): string | undefined {
  const f = fieldOf(rec, uuid);
  if (!f) return undefined;
  if (f.value !== undefined && f.value !== null && f.value !== '') return String(f.value);
  return f.files?.[0]?.href;
}

function childValues(rec: OdrRecord | undefined, [template, field]: readonly [string, string]): string[] {
  return (rec?.records ?? [])
    .filter((c) => c.template_uuid === template || c.database_uuid === template)
    .flatMap((c) => metaValue(c, field) ?? []);
}

function values(f: FieldEntry): JsonLdValue[] {
  const pv = (value: string | number | boolean): JsonLdValue => ({
    '@type': 'PropertyValue',
    propertyID: f.field_uuid,
    name: f.field_name,
    value,
  });
  if (f.selected !== undefined) return [pv(f.selected === 1)];
  if (f.values) return f.values.map((o) => pv(o.name));
  if (f.tags) return f.tags.map((t) => pv(t.name));
  if (f.files) return f.files.filter((x) => x.parent_image_id === undefined).map((x) => pv(x.href));
  return f.value === undefined || f.value === null || f.value === '' ? [] : [pv(f.value)];
}

function recordLd(r: OdrRecord, apiBase: string): JsonLdRecord {
  const out: JsonLdRecord = {
    '@type': 'Dataset',
    '@id': `${apiBase}/dataset/record/${r.record_uuid}`,
    identifier: r.record_uuid,
    name: String(r.record_name),
    dateCreated: r._record_metadata._create_date,
    dateModified: r._record_metadata._update_date ?? r._record_metadata._updated_date ?? r._record_metadata._create_date,
    variableMeasured: r.fields.flatMap(values),
  };
  if (r.records.length) out.hasPart = r.records.map((c) => recordLd(c, apiBase));
  return out;
}

export function datasetJsonLd(
  d: Domain,
  user: User,
  uuid: string,
  page: { limit: number; offset: number; apiBase: string },
): JsonLdDataset {
  let dt = d.datatype(uuid, 'Datatype');
  // A metadata dataset's uuid names the dataset it describes, as for DELETE /dataset.
  if (dt.metadataForUuid) dt = d.schema().datatypesByUuid.get(dt.metadataForUuid) ?? dt;
  if (dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
  const lists = d.lists;
  // Throws 403 when the caller may not see the dataset, like every record listing.
  const tops = lists.page(user, dt, page.limit, page.offset);
  const opts = { viewer: user, now: d.now(), apiBase: page.apiBase };
  const meta = metadataRecord(d, dt, opts);
  const now = d.now();
  const url = metaValue(meta, META.url);
  const free = metaValue(meta, META.free);
  const version = metaValue(meta, META.version);
  return {
    '@context': 'https://schema.org/',
    '@type': 'Dataset',
    '@id': `${page.apiBase}/jsonld/${dt.uuid}`,
    identifier: dt.uuid,
    name: metaValue(meta, META.name) ?? dt.name,
    description: metaValue(meta, META.description) ?? dt.description ?? '',
    url: url ?? `${page.apiBase}/dataset/${dt.uuid}`,
    ...(url ? { sameAs: url } : {}),
    ...(version ? { version } : {}),
    ...(free !== undefined ? { isAccessibleForFree: !['', '0', 'false', 'no'].includes(free.toLowerCase()) } : {}),
    dateCreated: dt.createDate,
    dateModified: dt.updatedAt,
    ...(isPublicAt(dt.publicDate, now) ? { datePublished: dt.publicDate } : {}),
    creator: { '@list': childValues(meta, META.creators).map((name) => ({ '@type': 'Person' as const, name })) },
    keywords: childValues(meta, META.keywords),
    license: childValues(meta, META.licenses),
    variableMeasured: dt.fields.map((f) => ({
      '@type': 'PropertyValue' as const,
      propertyID: f.uuid,
      name: f.name,
      ...(f.description ? { description: f.description } : {}),
    })),
    hasPart: d.reader.renderTops(tops, opts).map((r) => recordLd(r, page.apiBase)),
  };
}

/** The first record of the dataset's metadata dataset, when it has one the caller may read. */
function metadataRecord(d: Domain, dt: DatatypeInfo, opts: { viewer: User; now: string; apiBase: string }): OdrRecord | undefined {
  const metaDt = d
    .schema()
    .topLevel()
    .find((x) => x.metadataForUuid === dt.uuid);
  if (!metaDt) return undefined;
  const uuid = datasetStore(d.ctx.db).firstTopRecordUuid(metaDt.id);
  const rec = uuid === undefined ? undefined : d.store.byUuid(uuid);
  if (!rec) return undefined;
  try {
    return d.render(rec, opts);
  } catch {
    return undefined; // not readable by the caller: the dataset's own name and description
  }
}
