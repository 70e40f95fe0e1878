import type { Db } from '../store/db.js';
import { fieldType, type FieldType } from '../../../shared/fieldTypes.js';
import { schemaStore, type DatafieldRow, type DatatypeRow } from '../store/schema.js';

// Templates are small and read by every request, so they live in memory. The cache reloads
// when this connection changes a template (invalidate) or another process committed and bumped
// meta.schema_rev (checked only when PRAGMA data_version says someone else wrote).

export interface OptionInfo {
  id: number;
  uuid: string;
  fieldId: number;
  name: string;
  displayOrder: number;
  isDefault: boolean;
  userCreated: boolean;
  created: string;
  updatedAt: string;
  /** The server's template no longer lists it: selections stay stored, never shown. */
  removed: boolean;
}

export interface TagInfo {
  id: number;
  uuid: string;
  fieldId: number;
  parentId: number | null;
  name: string;
  displayOrder: number;
  userCreated: boolean;
  created: string;
  updatedAt: string;
  removed: boolean;
  children: TagInfo[];
}

export interface FieldInfo {
  id: number;
  uuid: string;
  datatypeId: number;
  templateFieldUuid: string | null;
  name: string;
  description: string | null;
  fieldtype: string;
  type: FieldType;
  isUnique: boolean;
  renderPlugins: { render_plugin: string }[];
  displayOrder: number;
  createDate: string;
  createAuth: string;
  publicDate: string;
  updatedAt: string;
  masterPublishedVersion: string;
  masterRevision: string;
  trackingMasterVersion: string;
  /**
   * The server's template no longer lists it (docs/sync.md §4): its values stay stored but are
   * never shown. Kept in `Schema.fields` (by id) only; absent from every uuid map and list.
   */
  removed: boolean;
  options: OptionInfo[];
  optionsByUuid: Map<string, OptionInfo>;
  tags: TagInfo[];
  tagsByUuid: Map<string, TagInfo>;
}

export interface DatatypeInfo {
  id: number;
  uuid: string;
  parentId: number | null;
  isMaster: boolean;
  name: string;
  description: string | null;
  masterUuid: string;
  metadataForUuid: string;
  searchSlug: string | null;
  renderPlugins: { render_plugin: string }[];
  nameFieldId: number | null;
  newRecordsPublic: boolean;
  displayOrder: number;
  ownerId: number | null;
  createDate: string;
  createAuth: string;
  publicDate: string;
  updatedAt: string;
  masterPublishedVersion: string;
  masterRevision: string;
  trackingMasterVersion: string;
  /** Template (layout) order. */
  fields: FieldInfo[];
  fieldsByUuid: Map<string, FieldInfo>;
  children: DatatypeInfo[];
  top: DatatypeInfo;
  depth: number;
}

export class Schema {
  readonly datatypes = new Map<number, DatatypeInfo>();
  readonly datatypesByUuid = new Map<string, DatatypeInfo>();
  readonly fields = new Map<number, FieldInfo>();
  readonly fieldsByUuid = new Map<string, FieldInfo>();
  readonly options = new Map<number, OptionInfo>();
  readonly tags = new Map<number, TagInfo>();

  topLevel(): DatatypeInfo[] {
    return [...this.datatypes.values()].filter((d) => d.parentId === null).sort((a, b) => a.id - b.id);
  }

  /** Datatype ids of a datatype and all its descendants. */
  subtreeIds(dt: DatatypeInfo, into: number[] = []): number[] {
    into.push(dt.id);
    for (const c of dt.children) this.subtreeIds(c, into);
    return into;
  }
}

/** The columns datatypes and datafields share: identity, naming, layout and ODR's version metadata. */
type MetaRow = Pick<
  DatatypeRow & DatafieldRow,
  | 'id'
  | 'uuid'
  | 'name'
  | 'description'
  | 'render_plugins'
  | 'display_order'
  | 'create_date'
  | 'create_auth'
  | 'public_date'
  | 'updated_at'
  | 'master_published_version'
  | 'master_revision'
  | 'tracking_master_version'
>;

function metaOf(r: MetaRow) {
  return {
    id: r.id,
    uuid: r.uuid,
    name: r.name,
    description: r.description,
    renderPlugins: JSON.parse(r.render_plugins) as { render_plugin: string }[],
    displayOrder: r.display_order,
    createDate: r.create_date,
    createAuth: r.create_auth,
    publicDate: r.public_date,
    updatedAt: r.updated_at,
    masterPublishedVersion: r.master_published_version,
    masterRevision: r.master_revision,
    trackingMasterVersion: r.tracking_master_version,
  };
}

export class SchemaCache {
  private current: Schema | null = null;
  private dataVersion = -1;
  private rev = '';
  /**
   * Template changes made on this connection so far, and loads made inside a transaction: a failed
   * op (GroupCommit) or tx() that moved it invalidates. A load inside a transaction may have read
   * rows it takes back, whether or not its writer called `changed()` before reading.
   */
  changes = 0;
  private readonly rows: ReturnType<typeof schemaStore>;

  constructor(private readonly db: Db) {
    this.rows = schemaStore(db);
  }

  get(): Schema {
    const dv = this.rows.dataVersion();
    if (this.current && dv !== this.dataVersion) {
      this.dataVersion = dv;
      const rev = this.rows.revision();
      if (rev !== this.rev) this.current = null;
    }
    if (!this.current) this.current = this.load();
    return this.current;
  }

  /** PRAGMA data_version as of the last get(): it moves when another connection commits. */
  get seenDataVersion(): number {
    return this.dataVersion;
  }

  /** Call inside the transaction that changed a template: bumps the revision other processes see. */
  changed(): void {
    this.rows.bumpRevision();
    this.current = null;
    this.changes++;
  }

  /** After a rolled-back transaction: the cache may hold what was never committed. */
  invalidate(): void {
    this.current = null;
  }

  private load(): Schema {
    if (this.db.inTransaction) this.changes++;
    const s = new Schema();
    this.dataVersion = this.rows.dataVersion();
    this.rev = this.rows.revision();
    const dts = this.rows.datatypes();
    for (const r of dts) {
      const d: DatatypeInfo = {
        ...metaOf(r),
        parentId: r.parent_id,
        isMaster: r.is_master === 1,
        masterUuid: r.master_uuid,
        metadataForUuid: r.metadata_for_uuid,
        searchSlug: r.search_slug,
        nameFieldId: r.name_field_id,
        newRecordsPublic: r.new_records_public === 1,
        ownerId: r.owner_id,
        fields: [],
        fieldsByUuid: new Map(),
        children: [],
        top: undefined as unknown as DatatypeInfo,
        depth: 0,
      };
      s.datatypes.set(d.id, d);
      s.datatypesByUuid.set(d.uuid, d);
    }
    for (const d of s.datatypes.values()) {
      if (d.parentId !== null) s.datatypes.get(d.parentId)?.children.push(d);
    }
    const setTop = (d: DatatypeInfo, top: DatatypeInfo, depth: number) => {
      d.top = top;
      d.depth = depth;
      for (const c of d.children) setTop(c, top, depth + 1);
    };
    for (const d of s.datatypes.values()) if (d.parentId === null) setTop(d, d, 0);

    const fields = this.rows.datafields();
    for (const r of fields) {
      const f: FieldInfo = {
        ...metaOf(r),
        datatypeId: r.datatype_id,
        templateFieldUuid: r.template_field_uuid,
        fieldtype: r.fieldtype,
        type: fieldType(r.fieldtype),
        isUnique: r.is_unique === 1,
        removed: r.removed_at !== null,
        options: [],
        optionsByUuid: new Map(),
        tags: [],
        tagsByUuid: new Map(),
      };
      s.fields.set(f.id, f);
      if (f.removed) continue;
      s.fieldsByUuid.set(f.uuid, f);
      const dt = s.datatypes.get(f.datatypeId);
      if (dt) {
        dt.fields.push(f);
        dt.fieldsByUuid.set(f.uuid, f);
      }
    }
    for (const r of this.rows.options()) {
      const o: OptionInfo = {
        id: r.id,
        uuid: r.uuid,
        fieldId: r.datafield_id,
        name: r.name,
        displayOrder: r.display_order,
        isDefault: r.is_default === 1,
        userCreated: r.user_created === 1,
        created: r.created,
        updatedAt: r.updated_at,
        removed: r.removed_at !== null,
      };
      s.options.set(o.id, o);
      const f = s.fields.get(o.fieldId);
      if (f && !o.removed) {
        f.options.push(o);
        f.optionsByUuid.set(o.uuid, o);
      }
    }
    for (const r of this.rows.tags()) {
      const t: TagInfo = {
        id: r.id,
        uuid: r.uuid,
        fieldId: r.datafield_id,
        parentId: r.parent_id,
        name: r.name,
        displayOrder: r.display_order,
        userCreated: r.user_created === 1,
        created: r.created,
        updatedAt: r.updated_at,
        removed: r.removed_at !== null,
        children: [],
      };
      s.tags.set(t.id, t);
      if (!t.removed) s.fields.get(t.fieldId)?.tagsByUuid.set(t.uuid, t);
    }
    for (const t of s.tags.values()) {
      if (t.removed) continue;
      if (t.parentId === null) s.fields.get(t.fieldId)?.tags.push(t);
      else s.tags.get(t.parentId)?.children.push(t);
    }
    return s;
  }
}
