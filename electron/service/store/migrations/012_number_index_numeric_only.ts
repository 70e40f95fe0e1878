// field_values_by_number held the numeric reading of every text value (names, notes, paragraphs:
// most of them read as 0), with the text riding along: 11 % of the database. A decimal range
// only needs values that read as numbers, and stored decimals always start with a digit, a sign
// or a point (shared/fieldTypes.ts normalises them), so the index keeps those alone. The search
// repeats the WHERE term so SQLite may use it (store/searchQuery.ts).
export default `
DROP INDEX IF EXISTS field_values_by_number;
CREATE INDEX field_values_by_number ON field_values(datafield_id, CAST(value AS REAL), value)
  WHERE typeof(value) = 'text' AND value GLOB '[0-9.+-]*';
`;
