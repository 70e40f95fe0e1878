// Deleted top-level records, kept for a restore (undo of a delete, days later) until they
// expire: the record tree in ODR export form, who created each record and file, and which
// stored bytes its files had, so the content store keeps them meanwhile.
export default `
CREATE TABLE record_trash (
  record_uuid TEXT PRIMARY KEY,
  rid INTEGER NOT NULL,
  dataset_uuid TEXT NOT NULL,
  deleted_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  deleted_by INTEGER NOT NULL,
  snapshot TEXT NOT NULL,
  creators TEXT NOT NULL,
  files TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX record_trash_expiry ON record_trash(expires_at);
CREATE TABLE record_trash_blobs (
  content_hash TEXT NOT NULL,
  record_uuid TEXT NOT NULL REFERENCES record_trash(record_uuid) ON DELETE CASCADE,
  PRIMARY KEY (content_hash, record_uuid)
) WITHOUT ROWID;
CREATE INDEX record_trash_blobs_by_record ON record_trash_blobs(record_uuid);
`;
