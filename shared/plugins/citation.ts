// The References Plugin: one reference record read as a citation. ODR's references datasets
// (CheMin-References, RRUFF Reference) name their fields in English; the plugin maps by name.

export interface Citation {
  authors: string;
  year: string;
  title: string;
  journal: string;
  volume: string;
  issue: string;
  pages: string;
  /** https://doi.org/… for a DOI value, else ''. */
  doiHref: string;
  doi: string;
  url: string;
}

const ROLES: [keyof Omit<Citation, 'doiHref'>, RegExp][] = [
  ['authors', /^authors?$/i],
  ['year', /^(publication )?year$/i],
  ['title', /^(article )?title$/i],
  ['journal', /^journal( name)?$/i],
  ['volume', /^volume$/i],
  ['issue', /^issue$/i],
  ['pages', /^pages?$/i],
  ['doi', /(^|\W)doi$/i],
  ['url', /(^|\W)(other )?url$/i],
];

const DOI = /(?:^|doi:\s*|doi\.org\/)(10\.\d{4,9}\/\S+)$/i;

export function doiHref(value: string): string {
  const m = DOI.exec(value.trim());
  return m ? `https://doi.org/${m[1]}` : '';
}

/** Reads a reference from its fields' names and text values; unmapped fields are ignored. */
export function citationOf(fields: { name: string; value: string }[]): Citation {
  const c: Citation = { authors: '', year: '', title: '', journal: '', volume: '', issue: '', pages: '', doi: '', doiHref: '', url: '' };
  for (const f of fields) {
    const v = f.value.trim();
    if (!v) continue;
    const role = ROLES.find(([, re]) => re.test(f.name.trim()));
    if (role && !c[role[0]]) c[role[0]] = v;
  }
  c.doiHref = doiHref(c.doi);
  return c;
}

export const isEmptyCitation = (c: Citation): boolean => !c.authors && !c.title && !c.journal && !c.doi;
