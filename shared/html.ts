// The real server renders some strings through Twig's HTML escaper (docs/odr-server.md §1.4);
// imports and the sync client undo that so names are stored once, unescaped.
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#039': "'", '#39': "'", apos: "'" };

export function unescapeHtml(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(amp|lt|gt|quot|#0?39|apos);/g, (_, e: string) => ENTITIES[e] ?? _);
}

/** `_create_auth` went through an XML escaper before the HTML one, so `&` arrives as `&amp;amp;`. */
export function unescapeHtmlTwice(s: string): string {
  return unescapeHtml(unescapeHtml(s));
}
