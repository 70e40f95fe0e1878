// Files as records (025): a file's internal id is its id in the API and in exports, and its rid
// orders a field's files; MAX() + 1 gave a deleted newest file's ids to the next upload. The same
// floor, kept by a trigger on every delete of a `files` row (a file's, its derivatives', a record's
// cascade), so the three writers (store/files.ts, recordImport.ts via the importer, syncFiles.ts)
// take new ids above it (store/newIds.ts).
//
// For an existing database the floor starts at its files and the file ids in its trash's
// snapshots (a restore gives a file its id back); earlier deletes are not knowable.
export default `
CREATE TABLE file_id_floor (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  rid INTEGER NOT NULL,
  internal_id INTEGER NOT NULL
);
INSERT INTO file_id_floor (one, rid, internal_id) VALUES (1,
  COALESCE((SELECT MAX(rid) FROM files), 0),
  max(COALESCE((SELECT MAX(internal_id) FROM files), 0),
      COALESCE((SELECT MAX(CAST(j.value AS INTEGER)) FROM record_trash t, json_tree(t.snapshot) j
                WHERE j.key = 'id' AND (j.path LIKE '%.files[%]' OR j.path LIKE '%.images[%]')), 0)));
CREATE TRIGGER file_id_floor_delete AFTER DELETE ON files BEGIN
  UPDATE file_id_floor SET rid = max(rid, old.rid), internal_id = max(internal_id, old.internal_id);
END;
`;
