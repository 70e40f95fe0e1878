// A dataset's "last change" (the datasets list, the dataset head) was the newest update date
// among the records it still holds, so deleting the newest record turned it back to an older
// time, and a restore (whose record keeps its own old date) did not count at all. A delete or a
// restore of a top-level record now stamps its dataset here (store/records.ts, the domain's
// restores), and the list takes the later of the two (store/recordLists.ts summaries). Before
// this version, no delete was stamped: those datasets show what they showed until their next one.
export default `
ALTER TABLE dataset_counts ADD COLUMN changed_at TEXT;
`;
