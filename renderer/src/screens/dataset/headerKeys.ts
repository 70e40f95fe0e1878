/**
 * The record grid's header row, reached the ARIA grid way rather than by ~20 Tab stops: the grid
 * is one Tab stop, ↑ on its top row goes up into the header (to the cell last visited there),
 * ←/→ and Home/End move between header cells, ↓ goes back down to the rows, Enter or Space on a
 * column sorts it (its own button), Shift+←/→ make the column narrower or wider. Tab leaves the
 * grid from the header as from the rows, to what follows it.
 */
export type HeaderMove = { to: number } | { resize: -1 | 1 } | { rows: true } | null;

/** What `key` does on header cell `at` of `count`; null: not the header's key (the control's own, or the window's). */
export function headerKey(key: string, mods: { shift: boolean; other: boolean }, at: number, count: number): HeaderMove {
  // Alt, Ctrl, Cmd: the window's shortcuts (Alt+↓ is the next record).
  if (mods.other || count === 0) return null;
  const clamp = (i: number) => Math.max(0, Math.min(count - 1, i));
  switch (key) {
    case 'ArrowLeft':
      return mods.shift ? { resize: -1 } : { to: clamp(at - 1) };
    case 'ArrowRight':
      return mods.shift ? { resize: 1 } : { to: clamp(at + 1) };
    case 'Home':
      return mods.shift ? null : { to: 0 };
    case 'End':
      return mods.shift ? null : { to: count - 1 };
    case 'ArrowDown':
      return mods.shift ? null : { rows: true };
    default:
      return null;
  }
}
