// The datasets list and the record table's total counted a dataset's top-level records on every
// request: a walk of ~1M index entries at 1M records (150-330 ms, the app's first request). The
// count is kept here instead, by triggers in the same transaction as every insert and delete
// (cascades included), so it is one row read. `gen` moves with every insert or delete: a cache
// of the dataset's top-level rid order (store/recordLists.ts pageStarts) is valid while it stays.
// Records never change dataset or parent (no UPDATE of those columns anywhere), so no UPDATE trigger.
export default `
CREATE TABLE dataset_counts (
  datatype_id INTEGER PRIMARY KEY REFERENCES datatypes(id) ON DELETE CASCADE,
  n INTEGER NOT NULL,
  gen INTEGER NOT NULL DEFAULT 0
);
INSERT INTO dataset_counts (datatype_id, n)
  SELECT datatype_id, COUNT(*) FROM records WHERE parent_rid IS NULL GROUP BY datatype_id;
CREATE TRIGGER dataset_counts_insert AFTER INSERT ON records WHEN new.parent_rid IS NULL BEGIN
  INSERT INTO dataset_counts (datatype_id, n, gen) VALUES (new.datatype_id, 1, 1)
    ON CONFLICT (datatype_id) DO UPDATE SET n = n + 1, gen = gen + 1;
END;
CREATE TRIGGER dataset_counts_delete AFTER DELETE ON records WHEN old.parent_rid IS NULL BEGIN
  UPDATE dataset_counts SET n = n - 1, gen = gen + 1 WHERE datatype_id = old.datatype_id;
END;
`;
