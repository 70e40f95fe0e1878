import type { Db } from '../store/db.js';
import { fieldType, type FieldType } from '../../../shared/fieldTypes.js';

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

const plugins = (json: string): { render_plugin: string }[] => JSON.parse(json) as { render_plugin: string }[];

export class SchemaCache {
  private current: Schema | null = null;
  private dataVersion = -1;
  private rev = '';
  private readonly dataVersionStmt;
  private readonly revStmt;

  constructor(private readonly db: Db) {
    this.dataVersionStmt = db.prepare('PRAGMA data_version').pluck();
    this.revStmt = db.prepare("SELECT value FROM meta WHERE key = 'schema_rev'").pluck();
  }

  get(): Schema {
    const dv = this.dataVersionStmt.get() as number;
    if (this.current && dv !== this.dataVersion) {
      this.dataVersion = dv;
      const rev = (this.revStmt.get() as string | undefined) ?? '';
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
    this.db
      .prepare("INSERT INTO meta (key, value) VALUES ('schema_rev', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")
      .run();
    this.current = null;
  }

  /** After a rolled-back transaction: the cache may hold what was never committed. */
  invalidate(): void {
    this.current = null;
  }

  private load(): Schema {
    const s = new Schema();
    this.dataVersion = this.dataVersionStmt.get() as number;
    this.rev = (this.revStmt.get() as string | undefined) ?? '';
    type Row = Record<string, unknown>;
    const dts = this.db.prepare('SELECT * FROM datatypes ORDER BY display_order, id').all() as Row[];
    for (const r of dts) {
      const d: DatatypeInfo = {
        id: r.id as number,
        uuid: r.uuid as string,
        parentId: r.parent_id as number | null,
        isMaster: r.is_master === 1,
        name: r.name as string,
        description: r.description as string | null,
        masterUuid: r.master_uuid as string,
        metadataForUuid: r.metadata_for_uuid as string,
        searchSlug: r.search_slug as string | null,
        renderPlugins: plugins(r.render_plugins as string),
        nameFieldId: r.name_field_id as number | null,
        newRecordsPublic: r.new_records_public === 1,
        displayOrder: r.display_order as number,
        ownerId: r.owner_id as number | null,
        createDate: r.create_date as string,
        createAuth: r.create_auth as string,
        publicDate: r.public_date as string,
        updatedAt: r.updated_at as string,
        masterPublishedVersion: r.master_published_version as string,
        masterRevision: r.master_revision as string,
        trackingMasterVersion: r.tracking_master_version as string,
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

    const fields = this.db.prepare('SELECT * FROM datafields ORDER BY display_order, id').all() as Row[];
    for (const r of fields) {
      const f: FieldInfo = {
        id: r.id as number,
        uuid: r.uuid as string,
        datatypeId: r.datatype_id as number,
        templateFieldUuid: r.template_field_uuid as string | null,
        name: r.name as string,
        description: r.description as string | null,
        fieldtype: r.fieldtype as string,
        type: fieldType(r.fieldtype as string),
        isUnique: r.is_unique === 1,
        renderPlugins: plugins(r.render_plugins as string),
        displayOrder: r.display_order as number,
        createDate: r.create_date as string,
        createAuth: r.create_auth as string,
        publicDate: r.public_date as string,
        updatedAt: r.updated_at as string,
        masterPublishedVersion: r.master_published_version as string,
        masterRevision: r.master_revision as string,
        trackingMasterVersion: r.tracking_master_version as string,
        removed: r.removed_at !== null && r.removed_at !== undefined,
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
    for (const r of this.db.prepare('SELECT * FROM radio_options ORDER BY display_order, id').all() as Row[]) {
      const o: OptionInfo = {
        id: r.id as number,
        uuid: r.uuid as string,
        fieldId: r.datafield_id as number,
        name: r.name as string,
        displayOrder: r.display_order as number,
        isDefault: r.is_default === 1,
        userCreated: r.user_created === 1,
        created: r.created as string,
        updatedAt: r.updated_at as string,
        removed: r.removed_at !== null && r.removed_at !== undefined,
      };
      s.options.set(o.id, o);
      const f = s.fields.get(o.fieldId);
      if (f && !o.removed) {
        f.options.push(o);
        f.optionsByUuid.set(o.uuid, o);
      }
    }
    for (const r of this.db.prepare('SELECT * FROM tags ORDER BY display_order, id').all() as Row[]) {
      const t: TagInfo = {
        id: r.id as number,
        uuid: r.uuid as string,
        fieldId: r.datafield_id as number,
        parentId: r.parent_id as number | null,
        name: r.name as string,
        displayOrder: r.display_order as number,
        userCreated: r.user_created === 1,
        created: r.created as string,
        updatedAt: r.updated_at as string,
        removed: r.removed_at !== null && r.removed_at !== undefined,
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
