import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

/** An action that leaves a crowded toolbar for its "More" menu when the row is too narrow. */
export interface OverflowAction {
  key: string;
  label: ReactNode;
  onClick: () => void;
  disabled?: boolean;
  title?: string;
}

/** Used for the More button's width until it has been drawn once. */
const MORE_GUESS = 80;

/**
 * How many of a toolbar's optional actions fit on its one row (the rest go into More). The
 * toolbar's other children keep their place; a flexible one (the search box) counts at its
 * min-width. Widths are measured while an action shows and remembered while it is in the menu
 * (hidden), so the answer does not swing back and forth. `deps`: what changes the fixed parts' widths.
 */
export function useOverflow(count: number, deps: unknown[]) {
  // A callback ref: the toolbar may mount after the hook (once its screen has loaded).
  const [el, bar] = useState<HTMLDivElement | null>(null);
  const widths = useRef<number[]>([]);
  const more = useRef(MORE_GUESS);
  const [shown, setShown] = useState(count);

  const measure = useCallback(() => {
    if (!el) return;
    const style = getComputedStyle(el);
    const gap = parseFloat(style.columnGap) || 0;
    const avail = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    let fixed = 0;
    let items = 0;
    for (const c of Array.from(el.children) as HTMLElement[]) {
      const opt = c.dataset.overflow;
      if (opt !== undefined) {
        if (c.offsetWidth) widths.current[Number(opt)] = c.offsetWidth;
      } else if (c.dataset.more !== undefined) more.current = c.offsetWidth;
      else if (!c.classList.contains('spacer') && getComputedStyle(c).position !== 'absolute') {
        // (An absolutely placed child, such as a screen-reader-only alert, takes no room.)
        const min = parseFloat(getComputedStyle(c).minWidth);
        fixed += c.matches('input') && min > 0 ? min : c.offsetWidth;
        items++;
      }
    }
    let fit = 0;
    let used = fixed + gap * Math.max(0, items - 1);
    for (; fit < count; fit++) {
      const w = widths.current[fit] ?? MORE_GUESS;
      const rest = fit + 1 < count ? more.current + gap : 0;
      if (used + gap + w + rest > avail) break;
      used += gap + w;
    }
    setShown(fit);
  }, [count, el]);

  useLayoutEffect(measure, [measure, ...deps]);
  useEffect(() => {
    if (!el) return;
    const ro = new ResizeObserver(() => measure());
    ro.observe(el);
    return () => ro.disconnect();
  }, [el, measure]);
  return { bar, shown };
}

/**
 * "More ▾": the actions that did not fit, as a menu (arrow keys, Home / End, Escape back to
 * the button, Tab away). The focus is on the button again before an action runs, so a dialog
 * it opens gives the focus back there.
 */
export function MoreMenu({ actions, label = 'More' }: { actions: OverflowAction[]; label?: string }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const id = useId();
  const items = () => Array.from(menu.current?.querySelectorAll<HTMLButtonElement>('[role=menuitem]:not(:disabled)') ?? []);
  const [first, setFirst] = useState<'first' | 'last'>('first');

  useEffect(() => {
    if (!open) return;
    const list = items();
    (first === 'last' ? list.at(-1) : list[0])?.focus();
    const away = (e: PointerEvent) => {
      if (!menu.current?.contains(e.target as Node) && !button.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', away);
    return () => document.removeEventListener('pointerdown', away);
  }, [open, first]);

  const show = (at: 'first' | 'last') => {
    setFirst(at);
    setOpen(true);
  };
  const onButtonKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      show(e.key === 'ArrowDown' ? 'first' : 'last');
    }
  };
  const onMenuKey = (e: KeyboardEvent) => {
    const list = items();
    const at = list.indexOf(document.activeElement as HTMLButtonElement);
    const go = (i: number) => list[(i + list.length) % list.length]?.focus();
    if (e.key === 'ArrowDown') go(at + 1);
    else if (e.key === 'ArrowUp') go(at - 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(list.length - 1);
    else if (e.key === 'Escape') {
      // Closes only the menu: the record pane and the selection behind it stay.
      e.stopPropagation();
      setOpen(false);
      button.current?.focus();
    } else if (e.key === 'Tab') {
      setOpen(false);
      return;
    } else return;
    e.preventDefault();
  };
  const run = (a: OverflowAction) => {
    setOpen(false);
    button.current?.focus();
    a.onClick();
  };

  if (actions.length === 0) return null;
  return (
    <span className="more-menu" data-more="">
      <button
        ref={button}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => (open ? setOpen(false) : show('first'))}
        onKeyDown={onButtonKey}
      >
        {label} <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div ref={menu} id={id} role="menu" aria-label={label} className="menu" onKeyDown={onMenuKey}>
          {actions.map((a) => (
            <button key={a.key} type="button" role="menuitem" tabIndex={-1} disabled={a.disabled} title={a.title} onClick={() => run(a)}>
              {a.label}
            </button>
          ))}
        </div>
      )}
    </span>
  );
}
