// Sync with remote ODR servers (docs/sync.md): remotes, synced datasets with their pull
// cursor, the id map for records created here, the last server copy of each record (merge
// base), the outbox of intent-level operations, conflicts, and the "removed on server" bin.
export default `
CREATE TABLE sync_remotes (
  id INTEGER PRIMARY KEY,
  url TEXT NOT NULL UNIQUE,
  username TEXT NOT NULL,
  password_enc TEXT NOT NULL,
  created TEXT NOT NULL
);
CREATE TABLE sync_datasets (
  remote_id INTEGER NOT NULL REFERENCES sync_remotes(id) ON DELETE CASCADE,
  dataset_uuid TEXT NOT NULL,
  cursor TEXT,
  last_pull TEXT,
  last_push TEXT,
  PRIMARY KEY (remote_id, dataset_uuid)
) WITHOUT ROWID;
CREATE TABLE sync_id_map (
  local_uuid TEXT PRIMARY KEY,
  remote_id INTEGER NOT NULL,
  remote_uuid TEXT,
  state TEXT NOT NULL,
  attempted_at TEXT
) WITHOUT ROWID;
CREATE UNIQUE INDEX sync_id_map_remote ON sync_id_map(remote_id, remote_uuid);
CREATE TABLE sync_base (
  remote_id INTEGER NOT NULL,
  remote_uuid TEXT NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (remote_id, remote_uuid)
) WITHOUT ROWID;
CREATE TABLE sync_outbox (
  id INTEGER PRIMARY KEY,
  dataset_uuid TEXT NOT NULL,
  record_uuid TEXT NOT NULL,
  top_record_uuid TEXT NOT NULL,
  op TEXT NOT NULL,
  field_uuid TEXT NOT NULL DEFAULT '',
  item_uuid TEXT NOT NULL DEFAULT '',
  payload TEXT,
  state TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  created TEXT NOT NULL
);
CREATE UNIQUE INDEX sync_outbox_key ON sync_outbox(record_uuid, op, field_uuid, item_uuid) WHERE state = 'pending';
CREATE TABLE sync_conflicts (
  id INTEGER PRIMARY KEY,
  dataset_uuid TEXT NOT NULL,
  record_uuid TEXT NOT NULL,
  top_record_uuid TEXT NOT NULL,
  field_uuid TEXT NOT NULL,
  field_name TEXT NOT NULL,
  base TEXT,
  mine TEXT,
  theirs TEXT,
  created TEXT NOT NULL,
  resolved TEXT,
  resolution TEXT
);
CREATE UNIQUE INDEX sync_conflicts_open ON sync_conflicts(record_uuid, field_uuid) WHERE resolved IS NULL;
CREATE TABLE sync_removed (
  record_uuid TEXT PRIMARY KEY,
  dataset_uuid TEXT NOT NULL,
  detected TEXT NOT NULL
) WITHOUT ROWID;
`;
