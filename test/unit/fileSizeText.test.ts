import { describe, expect, it } from 'vitest';
import { fileSizeText } from '../../renderer/src/lib/bytes.js';

// The image viewer, the files field and the history name a file's size through fileSizeText:
// servers list images with an empty file_size, which is no "0 bytes".
describe('a listed file size as text', () => {
  it('shows nothing when no size is known', () => {
    for (const none of ['', '  ', undefined, null, 'abc', '-5', '1.5', Number.NaN, -1]) expect(fileSizeText(none)).toBe('');
  });

  it('shows the real size, from a number or the digits servers send', () => {
    expect(fileSizeText('0')).toBe('0 bytes');
    expect(fileSizeText('5')).toBe('5 bytes');
    expect(fileSizeText(' 1 ')).toBe('1 byte');
    expect(fileSizeText(2048)).toBe('2.0 KB');
    expect(fileSizeText('5242880')).toBe('5.0 MB');
  });
});
