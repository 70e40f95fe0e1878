// dataset_counts.gen (migration 014) keys the cache of a dataset's top-level rid order
// (domain/records/list.ts). Counted per row it restarted at 1 whenever a row was made again,
// and a deleted dataset's datatype id can come back (the newest dataset deleted, then one
// restored from the dataset trash): the cache then took another dataset's order for its own and
// deep pages skipped or repeated records. gen now comes from one sequence over all datasets, so
// a value is never handed out twice.
export default `
CREATE TABLE dataset_counts_seq (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  last INTEGER NOT NULL
);
INSERT INTO dataset_counts_seq (id, last) SELECT 1, COALESCE(MAX(gen), 0) FROM dataset_counts;
DROP TRIGGER dataset_counts_insert;
DROP TRIGGER dataset_counts_delete;
CREATE TRIGGER dataset_counts_insert AFTER INSERT ON records WHEN new.parent_rid IS NULL BEGIN
  UPDATE dataset_counts_seq SET last = last + 1;
  INSERT INTO dataset_counts (datatype_id, n, gen) VALUES (new.datatype_id, 1, (SELECT last FROM dataset_counts_seq))
    ON CONFLICT (datatype_id) DO UPDATE SET n = n + 1, gen = excluded.gen;
END;
CREATE TRIGGER dataset_counts_delete AFTER DELETE ON records WHEN old.parent_rid IS NULL BEGIN
  UPDATE dataset_counts_seq SET last = last + 1;
  UPDATE dataset_counts SET n = n - 1, gen = (SELECT last FROM dataset_counts_seq) WHERE datatype_id = old.datatype_id;
END;
`;
