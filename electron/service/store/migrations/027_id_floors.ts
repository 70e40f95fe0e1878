// The rest of the schema's ids, as records' and files' (025, 026): a datatype's, field's, option's
// and tag's id is shown to users and scripts (record JSON, templates, API paths) and remembered by
// the render cache, sync state and history; a saved search's, conflict's and outbox entry's id is
// what the client names in DELETE /saved-searches/:id, POST /sync/conflicts/:id and
// /sync/attention/:id. SQLite's rule for a NULL id (MAX + 1) gave a deleted newest row's id to the
// next one made. One floor per table, raised by a trigger on every delete (cascades included: a
// dataset's delete takes its fields, options and tags) and on the re-key an import does to adopt an
// export's option or tag id (the id it leaves was handed out); store/newIds.ts reads it.
//
// For an existing database each floor starts at the table's highest id. Ids of rows deleted
// before this version are not knowable; that includes a trashed dataset's, which the trash keeps
// in files, not here.
const TABLES = ['datatypes', 'datafields', 'radio_options', 'tags', 'saved_searches', 'sync_conflicts', 'sync_outbox'];
const raise = (t: string) => `UPDATE id_floor SET id = max(id, old.id) WHERE tbl = '${t}';`;

export default `
CREATE TABLE id_floor (tbl TEXT PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO id_floor (tbl, id)
${TABLES.map((t) => `SELECT '${t}', COALESCE(MAX(id), 0) FROM ${t}`).join('\nUNION ALL ')};
${TABLES.map((t) => `CREATE TRIGGER ${t}_id_floor_delete AFTER DELETE ON ${t} BEGIN ${raise(t)} END;`).join('\n')}
${['radio_options', 'tags'].map((t) => `CREATE TRIGGER ${t}_id_floor_rekey AFTER UPDATE OF id ON ${t} BEGIN ${raise(t)} END;`).join('\n')}
`;
