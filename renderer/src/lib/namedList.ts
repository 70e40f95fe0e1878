/** How many records a confirmation names before "and N more". */
export const NAMED = 5;

/** "A", "A and B", "A, B and C", "A, B, C, D, E and 12 more": `total` counts the unnamed ones too. */
export function namedList(names: string[], total: number): string {
  const more = total - names.length;
  if (more > 0) return `${names.join(', ')} and ${more.toLocaleString()} more`;
  if (names.length < 2) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
