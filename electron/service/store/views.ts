import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

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
}

export function viewsRepository(db: Db): ViewsRepository {
  const stmts = {
    list: db.prepare('SELECT * FROM saved_searches WHERE user_id = ? AND dataset_uuid = ? ORDER BY name COLLATE NOCASE, id') as Statement<
      [number, string],
      SavedSearchRow
    >,
    one: db.prepare('SELECT * FROM saved_searches WHERE id = ?') as Statement<[number], SavedSearchRow>,
    add: db.prepare(
      'INSERT INTO saved_searches (user_id, dataset_uuid, name, view, created) VALUES (@user_id, @dataset_uuid, @name, @view, @created)',
    ) as Statement<[Omit<SavedSearchRow, 'id'>]>,
    del: db.prepare('DELETE FROM saved_searches WHERE id = ?') as Statement<[number]>,
    layout: db.prepare('SELECT layout FROM column_layouts WHERE user_id = ? AND dataset_uuid = ?').pluck() as Statement<
      [number, string],
      string
    >,
    putLayout: db.prepare(
      `INSERT INTO column_layouts (user_id, dataset_uuid, layout, updated) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, dataset_uuid) DO UPDATE SET layout = excluded.layout, updated = excluded.updated`,
    ) as Statement<[number, string, string, string]>,
  };
  return {
    savedSearches: (userId, datasetUuid) => stmts.list.all(userId, datasetUuid),
    savedSearch: (id) => stmts.one.get(id),
    addSavedSearch: (row) => Number(stmts.add.run(row).lastInsertRowid),
    deleteSavedSearch: (id) => void stmts.del.run(id),
    columnLayout: (userId, datasetUuid) => stmts.layout.get(userId, datasetUuid),
    putColumnLayout: (userId, datasetUuid, layout, updated) => void stmts.putLayout.run(userId, datasetUuid, layout, updated),
  };
}
