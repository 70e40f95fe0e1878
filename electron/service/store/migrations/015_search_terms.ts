// A prefix query ("basalt"*) makes FTS5 read and merge every doclist of every term with that
// prefix before it yields a row: the first 100 matches cost as much as all of them (63 ms
// against 0.6 ms for the exact terms at 100k records). The terms a prefix stands for are read
// from this vocabulary instead (domain/search/searchIndex.ts matchQuery), and a few exact terms
// OR-ed together stream in rowid order.
export default `
CREATE VIRTUAL TABLE record_search_terms USING fts5vocab(record_search, 'row');
`;
