import type { Db } from './db.js';
import { perConnection } from './prepared.js';

// The template tables as rows; domain/schemaCache.ts turns them into the in-memory schema.

export interface DatatypeRow {
  id: number;
  uuid: string;
  parent_id: number | null;
  is_master: number;
  name: string;
  description: string | null;
  master_uuid: string;
  metadata_for_uuid: string;
  search_slug: string | null;
  render_plugins: string;
  name_field_id: number | null;
  new_records_public: number;
  display_order: number;
  owner_id: number | null;
  create_date: string;
  create_auth: string;
  public_date: string;
  updated_at: string;
  master_published_version: string;
  master_revision: string;
  tracking_master_version: string;
}

export interface DatafieldRow {
  id: number;
  uuid: string;
  datatype_id: number;
  template_field_uuid: string | null;
  name: string;
  description: string | null;
  fieldtype: string;
  is_unique: number;
  render_plugins: string;
  display_order: number;
  create_date: string;
  create_auth: string;
  public_date: string;
  updated_at: string;
  master_published_version: string;
  master_revision: string;
  tracking_master_version: string;
  /** Set when a synced server template no longer lists it (migration 011). */
  removed_at: string | null;
}

export interface OptionRow {
  id: number;
  uuid: string;
  datafield_id: number;
  name: string;
  display_order: number;
  is_default: number;
  user_created: number;
  created: string;
  updated_at: string;
  /** Set when a synced server template no longer lists it (migration 011). */
  removed_at: string | null;
}

export interface TagRow {
  id: number;
  uuid: string;
  datafield_id: number;
  parent_id: number | null;
  name: string;
  display_order: number;
  user_created: number;
  created: string;
  updated_at: string;
  /** Set when a synced server template no longer lists it (migration 011). */
  removed_at: string | null;
}

const REV = 'schema_rev';

/** Reading the template tables whole, and the revision that tells other connections they changed. */
export const schemaStore = perConnection((db: Db) => {
  const s = {
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
    rev: db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck(),
    bump: db.prepare<[string]>(
      "INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
    ),
    datatypes: db.prepare<[], DatatypeRow>('SELECT * FROM datatypes ORDER BY display_order, id'),
    datafields: db.prepare<[], DatafieldRow>('SELECT * FROM datafields ORDER BY display_order, id'),
    options: db.prepare<[], OptionRow>('SELECT * FROM radio_options ORDER BY display_order, id'),
    tags: db.prepare<[], TagRow>('SELECT * FROM tags ORDER BY display_order, id'),
  };
  return {
    /** Moves when another connection commits (PRAGMA data_version). */
    dataVersion: () => s.dataVersion.get() ?? 0,
    /** The template revision; '' before the first template change. */
    revision: () => s.rev.get(REV) ?? '',
    /** Call in the transaction that changed a template. */
    bumpRevision: () => void s.bump.run(REV),
    datatypes: () => s.datatypes.all(),
    datafields: () => s.datafields.all(),
    options: () => s.options.all(),
    tags: () => s.tags.all(),
  };
});
