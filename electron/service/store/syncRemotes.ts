import type { SyncRemote } from '../../../shared/schemas/sync.js';
import type { Db } from './db.js';
import { perConnection } from './prepared.js';

/** A row of `sync_remotes`; the password is sealed (sync/secrets.ts). */
export interface RemoteRow {
  id: number;
  url: string;
  username: string;
  password_enc: string;
  created: string;
}

/** The `sync_remotes` table: the servers this data dir syncs with. */
export const syncRemotes = perConnection((db: Db) => {
  const s = {
    list: db.prepare<[], SyncRemote>('SELECT id, url, username, created FROM sync_remotes ORDER BY id'),
    byId: db.prepare<[number], RemoteRow>('SELECT * FROM sync_remotes WHERE id = ?'),
    upsert: db.prepare<[string, string, string, string]>(
      `INSERT INTO sync_remotes (url, username, password_enc, created) VALUES (?, ?, ?, ?)
       ON CONFLICT(url) DO UPDATE SET username = excluded.username, password_enc = excluded.password_enc`,
    ),
    idByUrl: db.prepare<[string], number>('SELECT id FROM sync_remotes WHERE url = ?').pluck(),
    datasetCount: db.prepare<[number], number>('SELECT COUNT(*) FROM sync_datasets WHERE remote_id = ?').pluck(),
  };
  return {
    list: () => s.list.all(),
    get: (id: number) => s.byId.get(id),
    /** Adds a remote, or updates the login of the one with that URL; returns its id. */
    upsert: (url: string, username: string, passwordEnc: string, created: string): number => {
      s.upsert.run(url, username, passwordEnc, created);
      return s.idByUrl.get(url)!;
    },
    /** Datasets chosen for sync with this remote. */
    datasetCount: (remoteId: number) => s.datasetCount.get(remoteId) ?? 0,
  };
});
