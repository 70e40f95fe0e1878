// Files in sync (docs/sync.md §8): which server file each file uploaded here became (with the
// remote files already on the record before an upload, so an upload whose answer was lost is
// found instead of sent twice), the datasets whose files are kept offline, and file conflicts
// (one open conflict per record, field and file).
export default `
CREATE TABLE sync_file_map (
  local_uuid TEXT PRIMARY KEY,
  remote_id INTEGER NOT NULL,
  remote_uuid TEXT,
  state TEXT NOT NULL,
  attempted_at TEXT,
  known_before TEXT
) WITHOUT ROWID;
CREATE UNIQUE INDEX sync_file_map_remote ON sync_file_map(remote_id, remote_uuid);
CREATE TABLE sync_files_offline (
  remote_id INTEGER NOT NULL REFERENCES sync_remotes(id) ON DELETE CASCADE,
  dataset_uuid TEXT NOT NULL,
  PRIMARY KEY (remote_id, dataset_uuid)
) WITHOUT ROWID;
ALTER TABLE sync_conflicts ADD COLUMN item_uuid TEXT NOT NULL DEFAULT '';
DROP INDEX sync_conflicts_open;
CREATE UNIQUE INDEX sync_conflicts_open ON sync_conflicts(record_uuid, field_uuid, item_uuid) WHERE resolved IS NULL;
`;
