// Deleted child records go to the trash too: restored under their parent, which must be there.
// The parent's name is kept for the Trash panel (the parent may be gone by then), and the top
// record's creator for the restore right (the creator of the top record may edit its children).
export default `
ALTER TABLE record_trash ADD COLUMN parent_uuid TEXT;
ALTER TABLE record_trash ADD COLUMN parent_name TEXT;
ALTER TABLE record_trash ADD COLUMN top_created_by INTEGER;
`;
