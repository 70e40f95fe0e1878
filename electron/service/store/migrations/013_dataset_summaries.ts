// The datasets list (the app's first request) counted records and took their last update date
// with one GROUP BY over every top-level record and its row: 0.3-0.6 s at 100k, linear in
// records. With this index each dataset's newest update date is one index probe and its count
// a walk of index entries only (store/recordLists.ts summaries).
export default `
CREATE INDEX records_top_by_update ON records(datatype_id, update_date) WHERE parent_rid IS NULL;
`;
