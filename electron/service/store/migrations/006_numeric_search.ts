// Decimal fields keep the text a user typed ("1.500", "2.5e3"), so a numeric range over them
// compared CAST(value AS REAL) row by row: a scan of the field's every value. This index holds
// the numeric reading of text values by field, so a decimal range is an index range like an
// integer one. `value` rides along so the index covers the search (a table lookup per match
// costs ~10x the index step). Only text values: integers and booleans are stored as numbers
// and use field_values_by_field. The search repeats the WHERE term so SQLite may use it.
export default `
CREATE INDEX field_values_by_number ON field_values(datafield_id, CAST(value AS REAL), value) WHERE typeof(value) = 'text';
`;
