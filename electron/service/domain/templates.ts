import type { DatabaseListEntry, Template, TemplateField, TemplateMetadata, TemplateTag } from '../../../shared/schemas/template.js';
import type { Domain } from './domain.js';
import { badRequest, notFound } from './errors.js';
import { newUuid } from './ids.js';
import { canViewDatatype } from './permissions.js';
import type { DatatypeInfo, FieldInfo, Schema, TagInfo } from './schemaCache.js';
import { tx } from './tx.js';
import type { User } from './users.js';
import { PRIVATE_DATE } from '../../../shared/dates.js';
import { templateCloneStatements } from '../store/templateImport.js';
import { datasetHidden } from './rights.js';

const rendered = new WeakMap<Schema, Map<number, Template>>();

function meta(x: {
  createDate: string;
  createAuth: string;
  publicDate: string;
  masterPublishedVersion: string;
  masterRevision: string;
  trackingMasterVersion: string;
}): TemplateMetadata {
  return {
    _create_date: x.createDate,
    _create_auth: x.createAuth,
    _public_date: x.publicDate,
    _master_published_version: x.masterPublishedVersion,
    _master_revision: x.masterRevision,
    _tracking_master_version: x.trackingMasterVersion,
  };
}

function tag(t: TagInfo): TemplateTag {
  return {
    name: t.name,
    id: String(t.id),
    display_order: String(t.displayOrder),
    template_tag_uuid: t.uuid,
    updated_at: t.updatedAt,
    ...(t.children.length ? { tags: t.children.map(tag) } : {}),
  };
}

/** A field as template exports show it (also GET /search/field/{uuid} and the stats routes). */
export function templateField(f: FieldInfo): TemplateField {
  const out: TemplateField = {
    internal_id: f.id,
    name: f.name,
    description: f.description,
    fieldtype: f.fieldtype,
    field_uuid: f.uuid,
    template_field_uuid: f.templateFieldUuid,
    updated_at: f.updatedAt,
    ...(f.renderPlugins.length ? { render_plugins: f.renderPlugins } : {}),
    ...(f.isUnique ? { is_unique: 1 as const } : {}),
    _field_metadata: meta(f),
  };
  if (f.type.storage === 'options') {
    out.radio_options = f.options.map((o) => ({ name: o.name, template_radio_option_uuid: o.uuid, updated_at: o.updatedAt }));
  } else if (f.type.storage === 'tags') {
    out.tags = f.tags.map(tag);
  }
  return out;
}

function build(dt: DatatypeInfo): Template {
  return {
    internal_id: dt.id,
    name: dt.name,
    description: dt.description,
    template_uuid: dt.uuid,
    updated_at: dt.updatedAt,
    ...(dt.renderPlugins.length ? { render_plugins: dt.renderPlugins } : {}),
    metadata_for_uuid: dt.metadataForUuid,
    _database_metadata: meta(dt),
    fields: dt.fields.map(templateField),
    related_databases: dt.children.map(build),
  };
}

/**
 * GET /template/{uuid} (and /master, /search/template): a dataset or a template uuid, rendered
 * once per schema revision.
 */
export function readTemplate(d: Domain, user: User, uuid: string): Template {
  const schema = d.schema();
  const dt = schema.datatypesByUuid.get(uuid);
  if (!dt) throw notFound('Datatype');
  if (dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
  if (!canViewDatatype(user, dt, d.now())) throw datasetHidden(dt);
  let cache = rendered.get(schema);
  if (!cache) rendered.set(schema, (cache = new Map()));
  let t = cache.get(dt.id);
  if (!t) cache.set(dt.id, (t = build(dt)));
  return t;
}

/** GET /search/databases (datasets) and /search/templates (master templates). */
export function listDatabases(d: Domain, user: User, masters: boolean): DatabaseListEntry[] {
  const now = d.now();
  return d
    .schema()
    .topLevel()
    .filter((dt) => dt.isMaster === masters && dt.metadataForUuid === '' && canViewDatatype(user, dt, now))
    .map((dt) => ({
      database_id: dt.id,
      database_name: dt.name,
      search_slug: dt.searchSlug,
      database_description: dt.description,
      unique_id: dt.uuid,
      template_id: dt.masterUuid || null,
    }));
}

/**
 * POST /dataset: a new dataset cloned from a template (or from any dataset: the seed makes their
 * uuids interchangeable). Fields get new uuids that point back through template_field_uuid;
 * option and tag uuids are the template's, as in ODR. Returns the new top-level datatype.
 */
export function createDatasetFromTemplate(d: Domain, user: User, templateUuid: string, name?: string): DatatypeInfo {
  const source = d.schema().datatypesByUuid.get(templateUuid);
  if (!source) throw notFound('Template');
  if (source.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
  if (!canViewDatatype(user, source, d.now())) throw datasetHidden(source);
  const at = d.now();
  const { insDt, insField, insOption, insTag, setName } = templateCloneStatements(d.ctx.db);

  const cloneTags = (fieldId: number, tags: TagInfo[], parentId: number | null) => {
    for (const t of tags) {
      const id = Number(insTag.run(t.uuid, fieldId, parentId, t.name, t.displayOrder, at, at).lastInsertRowid);
      cloneTags(fieldId, t.children, id);
    }
  };
  const clone = (src: DatatypeInfo, parentId: number | null): { id: number; uuid: string } => {
    const uuid = newUuid();
    const id = Number(
      insDt.run(
        uuid,
        parentId,
        parentId === null && name ? name : src.name,
        src.description,
        src.uuid,
        JSON.stringify(src.renderPlugins),
        src.newRecordsPublic ? 1 : 0,
        src.displayOrder,
        parentId === null ? user.id : null,
        at,
        user.display,
        PRIVATE_DATE,
        at,
      ).lastInsertRowid,
    );
    for (const f of src.fields) {
      const fid = Number(
        insField.run(
          newUuid(),
          id,
          f.uuid,
          f.name,
          f.description,
          f.fieldtype,
          f.isUnique ? 1 : 0,
          JSON.stringify(f.renderPlugins),
          f.displayOrder,
          at,
          user.display,
          f.publicDate,
          at,
        ).lastInsertRowid,
      );
      if (src.nameFieldId === f.id) setName.run(fid, id);
      for (const o of f.options) insOption.run(o.uuid, fid, o.name, o.displayOrder, o.isDefault ? 1 : 0, at, at);
      cloneTags(fid, f.tags, null);
    }
    for (const c of src.children) clone(c, id);
    return { id, uuid };
  };
  const created = tx(d.ctx, () => {
    const top = clone(source, null);
    d.ctx.schema.changed();
    d.log.append(at, {
      op: 'dataset.create',
      userId: user.id,
      datasetUuid: top.uuid,
      new: { template_uuid: source.uuid, name: name ?? source.name },
    });
    return top;
  });
  return d.schema().datatypes.get(created.id)!;
}
