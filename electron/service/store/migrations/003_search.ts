import { SEARCH_TOKENIZE } from '../searchTokens.js';

// Local full-text search over top-level records (our own /local search route). Contentless:
// the words are indexed, the text itself stays in field_values. Row id = the record's rid.
// A background indexer fills it from the change log; deletes are applied in the same
// transaction by the trigger, so a deleted record can never be found.
export default `
CREATE VIRTUAL TABLE record_search USING fts5(body, content='', contentless_delete=1, tokenize='${SEARCH_TOKENIZE}');
CREATE TRIGGER record_search_delete AFTER DELETE ON records WHEN old.parent_rid IS NULL BEGIN
  DELETE FROM record_search WHERE rowid = old.rid;
END;
`;
