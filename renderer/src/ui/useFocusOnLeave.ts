import { useLayoutEffect, useRef } from 'react';

/**
 * For an entry of a list that goes away once its action is done (a conflict resolved, a refused
 * operation retried or discarded): if the focus is in the entry as it unmounts, it moves to the
 * same action of the next entry (else of the one before; else any action of it; else
 * `fallback`), never to the page body. Actions are the entry's `[data-action]` elements.
 * `leaving(action)` is called once the action succeeded; it runs at the unmount, while the
 * entry's button still holds the focus.
 */
export function useFocusOnLeave<T extends HTMLElement>(fallback: (entry: T) => HTMLElement | null | undefined) {
  const entry = useRef<T>(null);
  const action = useRef<string | null>(null);
  const to = useRef(fallback);
  to.current = fallback;
  useLayoutEffect(
    () => () => {
      const el = entry.current;
      if (action.current === null || !el?.contains(document.activeElement)) return;
      const next = el.nextElementSibling ?? el.previousElementSibling;
      const target =
        next?.querySelector<HTMLElement>(`[data-action="${action.current}"]`) ??
        next?.querySelector<HTMLElement>('[data-action]') ??
        to.current(el);
      target?.focus();
    },
    [],
  );
  const leaving = (done: string) => {
    action.current = done;
  };
  return { entry, leaving };
}
