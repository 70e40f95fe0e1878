import type { Db } from './db.js';
import { nextRowIdSql } from './newIds.js';
import { perConnection } from './prepared.js';

/**
 * Options and tags a record save creates by name (docs/odr-server.md §4.2–4.3): marked
 * `user_created`, placed after the field's others (a new tag after its siblings).
 */
export const userOptionStore = perConnection((db: Db) => {
  const s = {
    optionOrder: db
      .prepare<[number], number>('SELECT COALESCE(MAX(display_order), -1) + 1 FROM radio_options WHERE datafield_id = ?')
      .pluck(),
    option: db.prepare<[string, number, string, number, string, string]>(
      `INSERT INTO radio_options (id, uuid, datafield_id, name, display_order, user_created, created, updated_at)
       VALUES (${nextRowIdSql('radio_options')}, ?, ?, ?, ?, 1, ?, ?)`,
    ),
    tagOrder: db
      .prepare<[number, number | null], number>(
        'SELECT COALESCE(MAX(display_order), -1) + 1 FROM tags WHERE datafield_id = ? AND parent_id IS ?',
      )
      .pluck(),
    tag: db.prepare<[string, number, number | null, string, number, string, string]>(
      `INSERT INTO tags (id, uuid, datafield_id, parent_id, name, display_order, user_created, created, updated_at)
       VALUES (${nextRowIdSql('tags')}, ?, ?, ?, ?, ?, 1, ?, ?)`,
    ),
    field: db.prepare<[string, number]>('UPDATE datafields SET updated_at = ? WHERE id = ?'),
  };
  return {
    addOption(uuid: string, fieldId: number, name: string, at: string): void {
      s.option.run(uuid, fieldId, name, s.optionOrder.get(fieldId)!, at, at);
      s.field.run(at, fieldId);
    },
    addTag(uuid: string, fieldId: number, parentId: number | null, name: string, at: string): void {
      s.tag.run(uuid, fieldId, parentId, name, s.tagOrder.get(fieldId, parentId)!, at, at);
      s.field.run(at, fieldId);
    },
  };
});
