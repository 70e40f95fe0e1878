// Field-level search (the ODR search routes): a value index per field, so a one-field search
// reads only that field's entries instead of every value of every record. NOCASE: exact text
// matches are case-insensitive as on the real server (MySQL's _ci collations); numbers sort the
// same under it, so numeric ranges use it too.
export default `
CREATE INDEX field_values_by_field ON field_values(datafield_id, value COLLATE NOCASE);
CREATE INDEX files_by_field ON files(datafield_id, record_rid);
`;
