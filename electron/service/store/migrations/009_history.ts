// Per-record history (GET /local/records/{uuid}/history) reads a record tree's change-log
// entries newest first: without this index every request would scan the whole log.
export default `
CREATE INDEX change_log_by_top ON change_log(top_record_uuid, seq);
`;
