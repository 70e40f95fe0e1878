// Turns ODR JSON as real servers emit it — current or legacy (docs/odr-server.md §1.4, §3.5, §9.8) —
// into one canonical shape. Used by the importer, the sync client and the fixture tests.
import { unescapeHtml, unescapeHtmlTwice } from './html.js';
import type { FieldTypeName } from './fieldTypes.js';
import { fieldType } from './fieldTypes.js';
import type { FieldEntry, FileEntry, OdrRecord, OptionEntry, RecordMetadata, TagEntry } from './schemas/record.js';
import { TemplateIn, type RenderPlugin, type TemplateFieldIn, type TemplateTagIn, type TemplateMetadata } from './schemas/template.js';

type Json = Record<string, unknown>;

const isObj = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);
const str = (x: unknown, dflt = ''): string => (typeof x === 'string' ? x : typeof x === 'number' ? String(x) : dflt);
const int = (x: unknown): number => (typeof x === 'number' ? x : Number.parseInt(str(x, '0'), 10) || 0);
/** Save responses may serialise `fields` as an object keyed "0", "2", … (docs/odr-server.md §5.9). */
const list = (x: unknown): unknown[] => (Array.isArray(x) ? x : isObj(x) ? Object.values(x) : []);

export class ShapeError extends Error {}

// ---------------------------------------------------------------- templates

export type { TemplateFieldIn, TemplateIn, TemplateTagIn };

function templateMetadata(x: unknown): TemplateMetadata {
  const m = isObj(x) ? x : {};
  return {
    _create_date: str(m._create_date),
    _create_auth: unescapeHtmlTwice(str(m._create_auth)),
    _public_date: str(m._public_date),
    _master_published_version: str(m._master_published_version, '0'),
    _master_revision: str(m._master_revision, '0'),
    _tracking_master_version: str(m._tracking_master_version, '0'),
  };
}

/** name → value pairs of string-like values; anything else is dropped. */
function pluginOptions(x: unknown): { render_plugin_options?: Record<string, string> } {
  if (!isObj(x)) return {};
  const opts = Object.fromEntries(
    Object.entries(x)
      .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
      .map(([k, v]) => [k, str(v)]),
  );
  return Object.keys(opts).length ? { render_plugin_options: opts } : {};
}

function renderPlugins(o: Json): { render_plugins?: RenderPlugin[] } {
  if (Array.isArray(o.render_plugins)) {
    const plugins = o.render_plugins
      .filter(isObj)
      .map((p) => ({ render_plugin: str(p.render_plugin), ...pluginOptions(p.render_plugin_options) }));
    return plugins.length ? { render_plugins: plugins } : {};
  }
  // Legacy servers name a single plugin as a string.
  if (typeof o.render_plugin === 'string' && o.render_plugin !== '') {
    return { render_plugins: [{ render_plugin: o.render_plugin, ...pluginOptions(o.render_plugin_options) }] };
  }
  return {};
}

function templateTag(x: unknown): TemplateTagIn {
  if (!isObj(x)) throw new ShapeError('a tag must be an object');
  const uuid = str(x.template_tag_uuid);
  if (!uuid) throw new ShapeError(`tag "${str(x.name)}" has no template_tag_uuid`);
  const kids = Array.isArray(x.tags) ? x.tags : Array.isArray(x.children) ? x.children : [];
  return {
    name: unescapeHtml(str(x.name)),
    ...(x.id !== undefined ? { id: str(x.id) } : {}),
    ...(x.display_order !== undefined ? { display_order: str(x.display_order) } : {}),
    template_tag_uuid: uuid,
    updated_at: str(x.updated_at),
    ...(kids.length ? { tags: kids.map(templateTag) } : {}),
  };
}

function templateField(x: unknown): TemplateFieldIn {
  if (!isObj(x)) throw new ShapeError('a template field must be an object');
  // Legacy exports have no field_uuid: their template_field_uuid is the field's own uuid
  // (records of those datasets reference it as field_uuid with template_field_uuid null).
  const hasOwn = typeof x.field_uuid === 'string' && x.field_uuid !== '';
  const fieldUuid = hasOwn ? str(x.field_uuid) : str(x.template_field_uuid);
  if (!fieldUuid) throw new ShapeError(`field "${str(x.name)}" has neither field_uuid nor template_field_uuid`);
  const fieldtype = str(x.fieldtype);
  if (!fieldtype) throw new ShapeError(`field "${str(x.name)}" has no fieldtype`);
  const out: TemplateFieldIn = {
    internal_id: int(x.internal_id),
    name: str(x.name),
    description: x.description === null || x.description === undefined ? null : str(x.description),
    fieldtype,
    field_uuid: fieldUuid,
    template_field_uuid: hasOwn && typeof x.template_field_uuid === 'string' ? x.template_field_uuid : null,
    updated_at: str(x.updated_at),
    ...renderPlugins(x),
    ...(x.is_unique === 1 || x.is_unique === '1' || x.is_unique === true ? { is_unique: 1 as const } : {}),
    _field_metadata: templateMetadata(x._field_metadata),
  };
  if (Array.isArray(x.radio_options)) {
    out.radio_options = x.radio_options.filter(isObj).map((o) => ({
      name: unescapeHtml(str(o.name)),
      template_radio_option_uuid: str(o.template_radio_option_uuid),
      updated_at: str(o.updated_at),
    }));
  }
  const tags = Array.isArray(x.tags) ? x.tags : fieldtype === 'Tags' && Array.isArray(x.value) ? x.value : null;
  if (tags) out.tags = tags.map(templateTag);
  return out;
}

/**
 * Any server's template export → the canonical shape. The result is checked against the
 * TemplateIn schema (shared/schemas/template.ts), the one definition of that shape.
 */
export function normalizeTemplate(x: unknown): TemplateIn {
  const out = TemplateIn.safeParse(templateTree(x));
  if (!out.success)
    throw new ShapeError(
      `template does not have the canonical shape: ${out.error.issues
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .slice(0, 3)
        .join('; ')}`,
    );
  return out.data;
}

function templateTree(x: unknown): TemplateIn {
  if (!isObj(x)) throw new ShapeError('a template must be a JSON object');
  const uuid = str(x.template_uuid);
  if (!uuid) throw new ShapeError('template has no template_uuid');
  if (!Array.isArray(x.fields)) throw new ShapeError(`template ${uuid} has no fields array`);
  return {
    internal_id: int(x.internal_id),
    name: str(x.name),
    description: x.description === null || x.description === undefined ? null : str(x.description),
    template_uuid: uuid,
    updated_at: str(x.updated_at),
    ...renderPlugins(x),
    metadata_for_uuid: str(x.metadata_for_uuid),
    _database_metadata: templateMetadata(x._database_metadata),
    fields: x.fields.map(templateField),
    related_databases: list(x.related_databases).map(templateTree),
  };
}

// ---------------------------------------------------------------- records

/** Field types by field uuid, when a template is known; guides Integer/Decimal/Boolean shapes. */
export type FieldTypesByUuid = ReadonlyMap<string, FieldTypeName>;

function recordMetadata(x: unknown): RecordMetadata {
  const m = isObj(x) ? x : {};
  return {
    _create_date: str(m._create_date),
    _update_date: str(m._update_date ?? m._updated_date),
    _create_auth: unescapeHtmlTwice(str(m._create_auth)),
    _public_date: str(m._public_date),
  };
}

function optionEntry(o: Json): OptionEntry {
  return {
    id: int(o.id),
    template_radio_option_uuid: str(o.template_radio_option_uuid),
    name: unescapeHtml(str(o.name)),
    ...(o.user_created !== undefined ? { user_created: '1' as const } : {}),
    ...(o.option_created !== undefined ? { option_created: str(o.option_created) } : {}),
    ...(o.option_selected !== undefined ? { option_selected: str(o.option_selected) } : {}),
    selected: 1,
  };
}

function tagEntry(o: Json): TagEntry {
  return {
    id: int(o.id),
    template_tag_uuid: str(o.template_tag_uuid),
    ...(o.parent_template_tag_uuid !== undefined ? { parent_template_tag_uuid: str(o.parent_template_tag_uuid) } : {}),
    name: unescapeHtml(str(o.name)),
    ...(o.user_created !== undefined ? { user_created: '1' as const } : {}),
    ...(o.tag_created !== undefined ? { tag_created: str(o.tag_created) } : {}),
    ...(o.tag_selected !== undefined ? { tag_selected: str(o.tag_selected) } : {}),
    selected: 1,
  };
}

const selectedFlag = (x: unknown) => x === undefined || x === 1 || x === '1' || x === true;

function fileEntry(o: Json): FileEntry {
  const meta = isObj(o._file_metadata) ? o._file_metadata : null;
  const out: FileEntry = {
    id: int(o.id),
    ...(o.parent_image_id !== undefined ? { parent_image_id: int(o.parent_image_id) } : {}),
    file_uuid: str(o.file_uuid),
    ...(o.file_size !== undefined ? { file_size: str(o.file_size) } : {}),
    href: str(o.href),
    original_name: str(o.original_name),
  };
  if (meta) {
    out._file_metadata = {};
    for (const k of ['_external_id', '_create_date', '_create_auth', '_public_date', '_display_order', '_quality'] as const) {
      if (meta[k] === undefined) continue;
      const v = str(meta[k]);
      out._file_metadata[k] = k === '_create_auth' ? unescapeHtmlTwice(v) : k === '_external_id' ? unescapeHtml(v) : v;
    }
  }
  for (const k of ['caption', 'width', 'height'] as const) if (o[k] !== undefined) out[k] = str(o[k]);
  return out;
}

function fieldEntry(x: unknown, types: FieldTypesByUuid | undefined): FieldEntry {
  if (!isObj(x)) throw new ShapeError('a record field must be an object');
  const uuid = str(x.field_uuid) || str(x.template_field_uuid);
  const type = types?.get(uuid);
  const out: FieldEntry = {
    field_name: str(x.field_name),
    field_uuid: uuid,
    template_field_uuid: typeof x.template_field_uuid === 'string' && x.field_uuid ? x.template_field_uuid : null,
    id: int(x.id),
  };
  if (isObj(x._field_metadata)) {
    const m = x._field_metadata;
    out._field_metadata = { _public_date: str(m._public_date) };
    if (m._create_date !== undefined) out._field_metadata._create_date = str(m._create_date);
    if (m._update_date !== undefined) out._field_metadata._update_date = str(m._update_date);
    if (m._create_auth !== undefined) out._field_metadata._create_auth = unescapeHtmlTwice(str(m._create_auth));
  }
  // Legacy servers put radio selections and tags under `value` as an array.
  const legacyList = Array.isArray(x.value) ? x.value.filter(isObj) : null;
  if (Array.isArray(x.values) || (legacyList && !legacyList.some((o) => 'template_tag_uuid' in o))) {
    const entries = (Array.isArray(x.values) ? x.values.filter(isObj) : legacyList!).filter((o) => selectedFlag(o.selected));
    out.values = entries.map(optionEntry);
  } else if (Array.isArray(x.tags) || legacyList) {
    const entries = (Array.isArray(x.tags) ? x.tags.filter(isObj) : legacyList!).filter((o) => selectedFlag(o.selected));
    out.tags = entries.map(tagEntry);
  } else if (Array.isArray(x.files)) {
    out.files = x.files.filter(isObj).map(fileEntry);
  } else if (x.selected !== undefined || type === 'Boolean') {
    const v = x.selected ?? x.value;
    out.selected = v === 1 || v === '1' || v === true ? 1 : 0;
  } else {
    out.value = scalar(x.value, type);
  }
  return out;
}

function scalar(v: unknown, type: FieldTypeName | undefined): string | number | null {
  if (v === undefined || v === null) return type && fieldType(type).storage === 'text' ? '' : null;
  const storage = type ? fieldType(type).storage : undefined;
  if (storage === 'integer') {
    if (v === '') return null;
    const n = typeof v === 'number' ? v : Number(v);
    return Number.isInteger(n) ? n : str(v);
  }
  if (storage === 'decimal') return v === '' ? null : str(v);
  if (storage === 'text' || storage === 'datetime') return str(v);
  return typeof v === 'number' || typeof v === 'string' ? v : str(v);
}

export function normalizeRecord(x: unknown, types?: FieldTypesByUuid): OdrRecord {
  if (!isObj(x)) throw new ShapeError('a record must be a JSON object');
  const uuid = str(x.record_uuid);
  if (!uuid) throw new ShapeError('record has no record_uuid');
  return {
    database_uuid: str(x.database_uuid),
    internal_id: int(x.internal_id),
    record_name: unescapeHtml(str(x.record_name)),
    record_uuid: uuid,
    template_uuid: str(x.template_uuid),
    metadata_for_uuid: str(x.metadata_for_uuid),
    _record_metadata: recordMetadata(x._record_metadata),
    fields: list(x.fields).map((f) => fieldEntry(f, types)),
    records: list(x.records).map((r) => normalizeRecord(r, types)),
  };
}

/** Field types of a normalised template tree, keyed by field uuid. */
export function fieldTypesOf(t: TemplateIn, into = new Map<string, FieldTypeName>()): Map<string, FieldTypeName> {
  for (const f of t.fields) into.set(f.field_uuid, f.fieldtype as FieldTypeName);
  for (const r of t.related_databases) fieldTypesOf(r, into);
  return into;
}
