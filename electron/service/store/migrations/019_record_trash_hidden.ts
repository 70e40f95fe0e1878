// A trashed record's snapshot is its rendered form, which leaves out values and selections under
// fields, options and tags removed from the template (they stay in storage, hidden): kept here
// too, so a restore brings them back under the removed rows as the delete found them.
export default `
ALTER TABLE record_trash ADD COLUMN hidden TEXT NOT NULL DEFAULT '{}';
`;
