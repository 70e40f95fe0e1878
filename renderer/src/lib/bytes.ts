// File sizes as text; no DOM here, so service-side tests can hold them too.

/** A file size as people read it: "5 bytes", "12.3 KB", "4.0 MB" (1 KB = 1,024 bytes). */
export function formatBytes(n: number | string | undefined): string {
  const b = Number(n ?? 0);
  if (!Number.isFinite(b) || b < 1024) return `${Number.isFinite(b) ? b : 0} byte${b === 1 ? '' : 's'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = b / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

/**
 * A listed file size as text, or '' when none is known: servers list images with an empty
 * `file_size` and exports often leave it out, and neither is "0 bytes".
 */
export function fileSizeText(size: number | string | null | undefined): string {
  const known = typeof size === 'number' ? Number.isSafeInteger(size) && size >= 0 : typeof size === 'string' && /^\d+$/.test(size.trim());
  return known ? formatBytes(typeof size === 'string' ? size.trim() : (size as number)) : '';
}
