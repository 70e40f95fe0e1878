// A deleted child's ancestors (nearest first, JSON uuids): its parent may have gone with an
// ancestor's delete, and a restore then names the ancestor to restore first. NULL in older
// entries: their parent alone is known.
export default `
ALTER TABLE record_trash ADD COLUMN ancestors TEXT;
`;
