import type { Db } from './db.js';
import { nextRowIdSql } from './newIds.js';
import { perConnection } from './prepared.js';

// Saved searches and column layouts (migration 006): typed rows, named prepared statements.
// The view and layout columns hold JSON the domain validated with the shared zod schemas.

export interface SavedSearchRow {
  id: number;
  user_id: number;
  dataset_uuid: string;
  name: string;
  view: string;
  created: string;
}

export interface ViewsRepository {
  savedSearches(userId: number, datasetUuid: string): SavedSearchRow[];
  savedSearch(id: number): SavedSearchRow | undefined;
  addSavedSearch(row: Omit<SavedSearchRow, 'id'>): number;
  deleteSavedSearch(id: number): void;
  columnLayout(userId: number, datasetUuid: string): string | undefined;
  putColumnLayout(userId: number, datasetUuid: string, layout: string, updated: string): void;
  deleteColumnLayout(userId: number, datasetUuid: string): void;
  /** Every user's saved searches and column layouts of these datasets (gone for good). */
  forgetDatasets(datasetUuids: string[]): void;
}

export const viewsRepository = perConnection((db: Db): ViewsRepository => {
  const stmts = {
    list: db.prepare<[number, string], SavedSearchRow>(
      'SELECT * FROM saved_searches WHERE user_id = ? AND dataset_uuid = ? ORDER BY name COLLATE NOCASE, id',
    ),
    one: db.prepare<[number], SavedSearchRow>('SELECT * FROM saved_searches WHERE id = ?'),
    add: db.prepare<[Omit<SavedSearchRow, 'id'>]>(
      `INSERT INTO saved_searches (id, user_id, dataset_uuid, name, view, created)
       VALUES (${nextRowIdSql('saved_searches')}, @user_id, @dataset_uuid, @name, @view, @created)`,
    ),
    del: db.prepare<[number]>('DELETE FROM saved_searches WHERE id = ?'),
    layout: db.prepare<[number, string], string>('SELECT layout FROM column_layouts WHERE user_id = ? AND dataset_uuid = ?').pluck(),
    delLayout: db.prepare<[number, string]>('DELETE FROM column_layouts WHERE user_id = ? AND dataset_uuid = ?'),
    forgetSearches: db.prepare<[string]>('DELETE FROM saved_searches WHERE dataset_uuid IN (SELECT value FROM json_each(?))'),
    forgetLayouts: db.prepare<[string]>('DELETE FROM column_layouts WHERE dataset_uuid IN (SELECT value FROM json_each(?))'),
    putLayout: db.prepare<[number, string, string, string]>(
      `INSERT INTO column_layouts (user_id, dataset_uuid, layout, updated) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, dataset_uuid) DO UPDATE SET layout = excluded.layout, updated = excluded.updated`,
    ),
  };
  return {
    savedSearches: (userId, datasetUuid) => stmts.list.all(userId, datasetUuid),
    savedSearch: (id) => stmts.one.get(id),
    addSavedSearch: (row) => Number(stmts.add.run(row).lastInsertRowid),
    deleteSavedSearch: (id) => void stmts.del.run(id),
    columnLayout: (userId, datasetUuid) => stmts.layout.get(userId, datasetUuid),
    putColumnLayout: (userId, datasetUuid, layout, updated) => void stmts.putLayout.run(userId, datasetUuid, layout, updated),
    deleteColumnLayout: (userId, datasetUuid) => void stmts.delLayout.run(userId, datasetUuid),
    forgetDatasets: (datasetUuids) => {
      const list = JSON.stringify(datasetUuids);
      stmts.forgetSearches.run(list);
      stmts.forgetLayouts.run(list);
    },
  };
});
