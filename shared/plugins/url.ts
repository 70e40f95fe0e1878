// ODR's URL Field: a value with a scheme is a link; a bare id (an AMCSD number, say) becomes a
// link only when the plugin's options give a base_url (and optionally post_url), as ODR does.

export interface UrlOptions {
  base_url?: string;
  post_url?: string;
  encode_input?: string;
  display_full_url?: string;
}

export interface Link {
  href: string;
  text: string;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const SAFE = /^(https?:\/\/|mailto:|ftp:\/\/)/i;

export function linkFor(raw: string, opts: UrlOptions = {}): Link | null {
  const value = raw.trim();
  if (!value) return null;
  if (SCHEME.test(value)) return SAFE.test(value) ? { href: value, text: value } : null;
  const base = opts.base_url && opts.base_url !== 'auto' ? opts.base_url : '';
  if (!base) return null;
  const post = opts.post_url && opts.post_url !== 'auto' ? opts.post_url : '';
  const href = base + (opts.encode_input === 'yes' ? encodeURIComponent(value) : value) + post;
  if (!SAFE.test(href)) return null;
  return { href, text: opts.display_full_url === 'yes' ? href : value };
}
