// Field-level search (the ODR search routes): a value index per field, so a one-field search
// reads only that field's entries instead of every value of every record.
export default `
CREATE INDEX field_values_by_field ON field_values(datafield_id, value);
CREATE INDEX files_by_field ON files(datafield_id, record_rid);
`;
