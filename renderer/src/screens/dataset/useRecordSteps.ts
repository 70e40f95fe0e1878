import { useEffect, useRef, type RefObject } from 'react';
import { paneFocusKey } from '../../editor/paneFocus';
import { focusInPlace } from '../../lib/focusInPlace';
import type { PickMods } from '../RecordTable';

const isField = (el: Element | null) => !!el?.closest('input, textarea, select, [contenteditable=true]');

/** Where Next was asked to go beyond a capped total's lower bound, and from which row. */
export type PastBound = { to: number; from: number } | null;

/**
 * Next and previous record (‹ › in the pane, Alt+↓ / Alt+↑ anywhere in the dataset). `past` is
 * the screen's: a pick or a new view drops a Next still waiting for the exact count. `refocus`
 * is the selector of the control to focus in the next record's pane.
 */
export function useRecordSteps({
  active,
  total,
  capped,
  past,
  askExact,
  onPick,
}: {
  active: number;
  total: number | null;
  capped: boolean;
  past: RefObject<PastBound>;
  askExact: () => void;
  onPick: (i: number, uuid: string | undefined, mods: PickMods) => void;
}) {
  const refocus = useRef<string | null>(null);

  const step = (by: number) => {
    if (total === null || total === 0) return;
    // A capped total is a lower bound: Next past it waits for the exact count, then moves on.
    if (capped && active + by > total - 1) {
      past.current = { to: active + by, from: active };
      askExact();
      return;
    }
    const to = Math.max(0, Math.min(total - 1, active + by));
    if (to === active) return;
    // The pane is drawn anew for the next record: what had the focus in it (‹ ›, a field left
    // with Alt+↓) has it again there, rather than leaving it on the page body.
    const a = document.activeElement;
    refocus.current = a instanceof HTMLElement && a.closest('aside.editor') ? paneFocusKey(a) : null;
    // Leaving the field saves it (or keeps its draft) before the record changes; the focus waits
    // on the pane (not the body, where Escape would reach nothing) until refocus places it.
    if (a instanceof HTMLElement && isField(a)) {
      const pane = a.closest<HTMLElement>('aside.editor');
      if (pane) focusInPlace(pane);
      else a.blur();
    }
    onPick(to, undefined, {});
  };

  useEffect(() => {
    if (past.current === null || capped || total === null) return;
    const { to: wanted, from } = past.current;
    past.current = null;
    // Acts only from the row Next was pressed on (a row opened another way meanwhile wins).
    if (from !== active) return;
    const to = Math.min(total - 1, wanted);
    if (to > active) step(to - active);
    // Only the arrival of the exact count moves on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [capped, total]);

  useEffect(() => {
    const on = (e: KeyboardEvent) => {
      if (!e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        step(e.key === 'ArrowDown' ? 1 : -1);
      }
    };
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  });

  return { step, refocus };
}
