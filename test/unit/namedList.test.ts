import { describe, expect, it } from 'vitest';
import { NAMED, namedList } from '../../renderer/src/lib/namedList.js';

// The delete confirmation names the records it deletes: up to NAMED, then how many more.
describe('records named in a confirmation', () => {
  it('names one, two, several', () => {
    expect(namedList(['S-1'], 1)).toBe('S-1');
    expect(namedList(['S-1', 'S-2'], 2)).toBe('S-1 and S-2');
    expect(namedList(['S-1', 'S-2', 'S-3'], 3)).toBe('S-1, S-2 and S-3');
  });

  it('says how many more after the first names', () => {
    expect(NAMED).toBe(5);
    expect(namedList(['a', 'b', 'c', 'd', 'e'], 6)).toBe('a, b, c, d, e and 1 more');
    expect(namedList(['a', 'b', 'c', 'd', 'e'], 12005)).toBe('a, b, c, d, e and 12,000 more');
  });
});
