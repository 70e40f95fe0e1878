import { describe, expect, it } from 'vitest';
import { headerKey } from '../../renderer/src/screens/dataset/headerKeys.js';

const plain = { shift: false, other: false };
const shift = { shift: true, other: false };

describe('headerKey', () => {
  it('moves between header cells within the row, never past its ends', () => {
    expect(headerKey('ArrowRight', plain, 0, 3)).toEqual({ to: 1 });
    expect(headerKey('ArrowRight', plain, 2, 3)).toEqual({ to: 2 });
    expect(headerKey('ArrowLeft', plain, 0, 3)).toEqual({ to: 0 });
    expect(headerKey('Home', plain, 2, 3)).toEqual({ to: 0 });
    expect(headerKey('End', plain, 0, 3)).toEqual({ to: 2 });
  });
  it('resizes with Shift, goes down to the rows with ↓', () => {
    expect(headerKey('ArrowLeft', shift, 1, 3)).toEqual({ resize: -1 });
    expect(headerKey('ArrowRight', shift, 1, 3)).toEqual({ resize: 1 });
    expect(headerKey('ArrowDown', plain, 1, 3)).toEqual({ rows: true });
  });
  it("leaves the control's own keys and the window's shortcuts alone", () => {
    for (const key of ['Enter', ' ', 'Tab', 'ArrowUp', 'a']) expect(headerKey(key, plain, 1, 3)).toBeNull();
    expect(headerKey('ArrowDown', { shift: false, other: true }, 1, 3)).toBeNull();
    expect(headerKey('ArrowRight', { shift: false, other: true }, 1, 3)).toBeNull();
    expect(headerKey('ArrowRight', plain, 0, 0)).toBeNull();
  });
});
