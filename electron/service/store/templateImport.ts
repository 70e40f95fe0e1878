import type { Db } from './db.js';
import { idFromElsewhereFreeSql, nextRowIdSql, wantedOrNextIdSql, type IdFromElsewhere } from './newIds.js';
import { perConnection } from './prepared.js';

/**
 * Upserts of the template tables (datatypes, datafields, radio_options, tags) for imports of
 * templates and datasets: ids from the export are kept when free (`*IdFree`, store/newIds.ts), uuids find rows.
 */
export const templateImportStatements = perConnection((db: Db) => ({
  dtByUuid: db.prepare<[string], number>('SELECT id FROM datatypes WHERE uuid = ?').pluck(),
  dtIdFree: db.prepare<IdFromElsewhere, number>(idFromElsewhereFreeSql('datatypes')).pluck(),
  insDt: db.prepare(`INSERT INTO datatypes (id, uuid, parent_id, is_master, name, description, metadata_for_uuid, render_plugins,
                 display_order, owner_id, create_date, create_auth, public_date, updated_at,
                 master_published_version, master_revision, tracking_master_version)
                VALUES (${wantedOrNextIdSql('datatypes')}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  updDt: db.prepare(`UPDATE datatypes SET name = ?, description = ?, metadata_for_uuid = ?, render_plugins = ?, display_order = ?,
                 create_date = ?, create_auth = ?, public_date = ?, updated_at = ?, master_published_version = ?,
                 master_revision = ?, tracking_master_version = ? WHERE id = ?`),
  fieldByUuid: db.prepare<[string], number>('SELECT id FROM datafields WHERE uuid = ?').pluck(),
  fieldIdFree: db.prepare<IdFromElsewhere, number>(idFromElsewhereFreeSql('datafields')).pluck(),
  insField: db.prepare(`INSERT INTO datafields (id, uuid, datatype_id, template_field_uuid, name, description, fieldtype, is_unique,
                    render_plugins, display_order, create_date, create_auth, public_date, updated_at,
                    master_published_version, master_revision, tracking_master_version)
                   VALUES (${wantedOrNextIdSql('datafields')}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  updField: db.prepare(`UPDATE datafields SET template_field_uuid = ?, name = ?, description = ?, fieldtype = ?, is_unique = ?,
                    render_plugins = ?, display_order = ?, create_date = ?, create_auth = ?, public_date = ?, updated_at = ?,
                    master_published_version = ?, master_revision = ?, tracking_master_version = ? WHERE id = ?`),
  optionId: db.prepare<[number, string], number>('SELECT id FROM radio_options WHERE datafield_id = ? AND uuid = ?').pluck(),
  optionIdFree: db.prepare<IdFromElsewhere, number>(idFromElsewhereFreeSql('radio_options')).pluck(),
  insOption: db.prepare(
    `INSERT INTO radio_options (id, uuid, datafield_id, name, display_order, created, updated_at)
     VALUES (${wantedOrNextIdSql('radio_options')}, ?, ?, ?, ?, ?, ?)`,
  ),
  updOption: db.prepare('UPDATE radio_options SET name = ?, display_order = ?, updated_at = ? WHERE id = ?'),
  tagId: db.prepare<[number, string], number>('SELECT id FROM tags WHERE datafield_id = ? AND uuid = ?').pluck(),
  tagIdFree: db.prepare<IdFromElsewhere, number>(idFromElsewhereFreeSql('tags')).pluck(),
  insTag: db.prepare(
    `INSERT INTO tags (id, uuid, datafield_id, parent_id, name, display_order, created, updated_at)
     VALUES (${wantedOrNextIdSql('tags')}, ?, ?, ?, ?, ?, ?, ?)`,
  ),
  updTag: db.prepare('UPDATE tags SET parent_id = ?, name = ?, display_order = ?, updated_at = ? WHERE id = ?'),
}));

/** Inserts for a new dataset cloned from a template (new ids and uuids; options and tags keep theirs). */
export const templateCloneStatements = perConnection((db: Db) => ({
  insDt: db.prepare(`INSERT INTO datatypes (id, uuid, parent_id, name, description, master_uuid, render_plugins, new_records_public,
      display_order, owner_id, create_date, create_auth, public_date, updated_at)
      VALUES (${nextRowIdSql('datatypes')}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  insField: db.prepare(`INSERT INTO datafields (id, uuid, datatype_id, template_field_uuid, name, description, fieldtype, is_unique,
      render_plugins, display_order, create_date, create_auth, public_date, updated_at)
      VALUES (${nextRowIdSql('datafields')}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  insOption: db.prepare(`INSERT INTO radio_options (id, uuid, datafield_id, name, display_order, is_default, created, updated_at)
      VALUES (${nextRowIdSql('radio_options')}, ?, ?, ?, ?, ?, ?, ?)`),
  insTag: db.prepare(`INSERT INTO tags (id, uuid, datafield_id, parent_id, name, display_order, created, updated_at)
      VALUES (${nextRowIdSql('tags')}, ?, ?, ?, ?, ?, ?, ?)`),
  setName: db.prepare('UPDATE datatypes SET name_field_id = ? WHERE id = ?'),
}));
