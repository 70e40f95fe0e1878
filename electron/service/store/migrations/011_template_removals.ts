// Template parts the server removed (docs/sync.md §4): a field, option or tag that a pulled
// template no longer lists is marked, not deleted, so the values stored under it stay (hidden
// from every read) and nothing is ever pushed as a deletion. Cleared when the server lists it again.
export default `
ALTER TABLE datafields ADD COLUMN removed_at TEXT;
ALTER TABLE radio_options ADD COLUMN removed_at TEXT;
ALTER TABLE tags ADD COLUMN removed_at TEXT;
`;
