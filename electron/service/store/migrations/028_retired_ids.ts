// The floors (025–027) keep ids made here from going to a second row, but an import or a pull
// brings ids from elsewhere (an export's, the server's) and took one whenever no row held it
// now, a deleted row's included: a record pulled from the server could get the internal id a
// record deleted here had, and a script holding that id then read another record. Every id a
// delete (or an import's re-key of an option or tag) gives up is kept here with whose it was;
// an id from elsewhere is taken only if no row holds it and it was retired by no one else
// (store/newIds.ts idFromElsewhereFreeSql). The same owner may take it back: a restore, or the
// same record pulled again.
//
// Owner: the row's uuid; for an option or tag its field's id and uuid (the same option uuid is
// found in every dataset made from one master template). Ids in the record trash are retired as
// this version starts (a restore takes them back); other deletes before it are not knowable.
const OWNED = [
  ['records', 'internal_id', 'old.uuid'],
  ['files', 'internal_id', 'old.uuid'],
  ['datatypes', 'id', 'old.uuid'],
  ['datafields', 'id', 'old.uuid'],
  ['radio_options', 'id', "old.datafield_id || '/' || old.uuid"],
  ['tags', 'id', "old.datafield_id || '/' || old.uuid"],
] as const;

const retire = (table: string, column: string, owner: string) =>
  `INSERT OR REPLACE INTO retired_ids (tbl, id, owner) VALUES ('${table}', old.${column}, ${owner});`;

export default `
CREATE TABLE retired_ids (
  tbl TEXT NOT NULL,
  id INTEGER NOT NULL,
  owner TEXT NOT NULL,
  PRIMARY KEY (tbl, id)
) WITHOUT ROWID;
${OWNED.map(([t, c, o]) => `CREATE TRIGGER ${t}_retired_delete AFTER DELETE ON ${t} BEGIN ${retire(t, c, o)} END;`).join('\n')}
${OWNED.filter(([t]) => t === 'radio_options' || t === 'tags')
  .map(([t, c, o]) => `CREATE TRIGGER ${t}_retired_rekey AFTER UPDATE OF id ON ${t} BEGIN ${retire(t, c, o)} END;`)
  .join('\n')}
INSERT OR IGNORE INTO retired_ids (tbl, id, owner)
  SELECT 'records', CAST(j.value AS INTEGER), json_extract(t.snapshot, j.path || '.record_uuid')
  FROM record_trash t, json_tree(t.snapshot) j
  WHERE j.key = 'internal_id' AND json_extract(t.snapshot, j.path || '.record_uuid') IS NOT NULL;
INSERT OR IGNORE INTO retired_ids (tbl, id, owner)
  SELECT 'files', CAST(j.value AS INTEGER), json_extract(t.snapshot, j.path || '.file_uuid')
  FROM record_trash t, json_tree(t.snapshot) j
  WHERE j.key = 'id' AND (j.path LIKE '%.files[%]' OR j.path LIKE '%.images[%]')
    AND json_extract(t.snapshot, j.path || '.file_uuid') IS NOT NULL;
`;
