import { describe, expect, it } from 'vitest';
import { FIELD_TYPE_NAMES } from '../../shared/fieldTypes.js';
import { withArticle } from '../../shared/article.js';

// Every field type name (and the names messages put an article before) reads right.
describe('withArticle', () => {
  it('gives each field type its article by sound', () => {
    const an = new Set(['Integer', 'Image', 'XYZ Data']);
    for (const t of FIELD_TYPE_NAMES) expect(withArticle(t)).toBe(`${an.has(t) ? 'an' : 'a'} ${t}`);
  });

  it('reads the first word of a name, acronyms by their letters', () => {
    expect(withArticle('XRD-RDA')).toBe('an XRD-RDA');
    expect(withArticle('image/png')).toBe('an image/png');
    expect(withArticle('Unused cell')).toBe('an Unused cell');
    expect(withArticle('Subsamples')).toBe('a Subsamples');
    expect(withArticle('hour')).toBe('an hour');
  });
});
