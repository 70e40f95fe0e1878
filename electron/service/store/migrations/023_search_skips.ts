// Stepping from an indexed term to the next (store/searchIndex.ts termsBetween) seeks
// `term + U+0001`, which FTS5 finds by walking `term`'s whole doclist (it seeks by the page a term
// starts on): 1–5 ms per common word at 1M records. `search_skips` keeps, for the terms of long
// doclists, the next indexed term, whose own start a seek finds at once (next NULL: none after).
// No indexed term lies strictly between the two (store/searchSkips.ts keeps it so); `next` may
// have lost its documents since, and a seek from it still finds the true successor. The 'row'
// vocabulary counts each term's documents: the background pass that finds the long terms reads it.
export default `
CREATE TABLE search_skips (term TEXT PRIMARY KEY, next TEXT) WITHOUT ROWID;
CREATE VIRTUAL TABLE record_search_rows USING fts5vocab(record_search, 'row');
`;
