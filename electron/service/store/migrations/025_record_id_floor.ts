// A rid or internal id, once handed out, is never handed out again: the render cache, the change
// log, sync state, the trash (which restores a record at its old rid) and users' scripts all
// remember them, and MAX() + 1 gave a deleted newest record's ids to the next new one. The floor
// is the highest of each seen by a delete; new ids start above MAX(floor, MAX(column)). A trigger
// keeps it on every delete, cascades included (a parent's, a dataset's), so no code path can miss
// it, and the insert path only reads one more row (store/newIds.ts).
//
// For an existing database the floor starts at what it holds now: its records and the records in
// its trash (top rids; every internal id in the snapshots). Ids of records deleted before this
// version and gone from the trash are not knowable; a record created since with one of them keeps it.
export default `
CREATE TABLE record_id_floor (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  rid INTEGER NOT NULL,
  internal_id INTEGER NOT NULL
);
INSERT INTO record_id_floor (one, rid, internal_id) VALUES (1,
  max(COALESCE((SELECT MAX(rid) FROM records), 0), COALESCE((SELECT MAX(rid) FROM record_trash), 0)),
  max(COALESCE((SELECT MAX(internal_id) FROM records), 0),
      COALESCE((SELECT MAX(CAST(j.value AS INTEGER)) FROM record_trash t, json_tree(t.snapshot) j WHERE j.key = 'internal_id'), 0)));
CREATE TRIGGER record_id_floor_delete AFTER DELETE ON records BEGIN
  UPDATE record_id_floor SET rid = max(rid, old.rid), internal_id = max(internal_id, old.internal_id);
END;
`;
