// The 'row' vocabulary (migration 015) counts every document of each term it yields: looking up
// the terms a word's prefix stands for read the whole doclist of a common word (50 ms for
// "basalt" at 1M records, 3.6 ms at 100k). The 'instance' vocabulary yields entries one by one,
// so its first entry at or after a term costs a seek: store/searchIndex.ts termsBetween steps
// from term to term with it (0.4 ms at 1M).
export default `
DROP TABLE IF EXISTS record_search_terms;
CREATE VIRTUAL TABLE record_search_instances USING fts5vocab(record_search, 'instance');
`;
