import type { FileEntry } from '../../../shared/schemas/record';

/** Originals with their first derivative (the thumbnail) for image fields; plain files as they are. */
export function groupImages(files: FileEntry[]): { original: FileEntry; thumb?: FileEntry }[] {
  const originals = files.filter((f) => f.parent_image_id === undefined);
  return originals.map((o) => ({ original: o, thumb: files.find((f) => f.parent_image_id === o.id) }));
}
