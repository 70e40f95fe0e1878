import { describe, expect, it } from 'vitest';
import { heldValue, sameHeld } from '../../electron/service/domain/records/heldValue.js';

// The one "does the record still hold it" rule, shared by the guarded value write and the batch
// undo (they used to differ: the batch compared strictly, so "1.50" was not 1.5 there).
describe('sameHeld', () => {
  it('decimals: trailing zeros are the same number, other digits are not', () => {
    expect(sameHeld('decimal', '1.50', 1.5)).toBe(true);
    expect(sameHeld('decimal', '2.0', '2')).toBe(true);
    expect(sameHeld('decimal', '10', '1')).toBe(false);
    expect(sameHeld('decimal', '1.05', '1.5')).toBe(false);
    expect(sameHeld('decimal', '1e5', '1e50')).toBe(false);
  });
  it('integers: a number and its text are one value; zero is a value, not empty', () => {
    expect(sameHeld('integer', 7, '7')).toBe(true);
    expect(sameHeld('integer', 70, 7)).toBe(false);
    expect(sameHeld('integer', 0, null)).toBe(false);
  });
  it('empty, null and absent are one state', () => {
    for (const kind of ['text', 'integer', 'decimal', 'datetime'] as const) {
      expect(sameHeld(kind, '', null)).toBe(true);
      expect(sameHeld(kind, undefined, '')).toBe(true);
      expect(heldValue(kind, null)).toBeNull();
    }
    expect(sameHeld('text', '', 'x')).toBe(false);
  });
  it('booleans: unchecked is empty, checked is not', () => {
    expect(sameHeld('boolean', 0, null)).toBe(true);
    expect(sameHeld('boolean', '0', '')).toBe(true);
    expect(sameHeld('boolean', 1, '1')).toBe(true);
    expect(sameHeld('boolean', 1, 0)).toBe(false);
  });
  it('dates compare as stored text: the same date matches, another does not, text is not trimmed of zeros', () => {
    expect(sameHeld('datetime', '2024-01-05', '2024-01-05')).toBe(true);
    expect(sameHeld('datetime', '2024-01-05', '2024-01-06')).toBe(false);
    expect(sameHeld('datetime', '2024-01-10', '2024-01-1')).toBe(false);
    expect(sameHeld('text', '1.50', '1.5')).toBe(false);
  });
});
