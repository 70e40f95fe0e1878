import { useEffect, useRef, type ReactNode, type RefObject } from 'react';

/**
 * The right-hand panel (Jobs, Sync, Settings): a titled landmark with a close button. It takes the
 * focus when it opens, gives it back to what had it when it closes, and Escape closes it. Narrow
 * windows show it over the content; wide ones dock it beside (styles.css).
 */
export function SidePanel({
  title,
  className = '',
  actions,
  onClose,
  children,
}: {
  title: string;
  className?: string;
  actions?: ReactNode;
  onClose: () => void;
  children: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    const back = document.activeElement;
    heading.current?.focus();
    return () => {
      if (back instanceof HTMLElement && back.isConnected) back.focus();
    };
  }, []);
  useKeepFocusIn(panel, heading);
  return (
    <aside
      ref={panel}
      className={`jobs side-panel ${className}`.trim()}
      aria-label={title}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !e.defaultPrevented) {
          e.preventDefault();
          onClose();
        }
      }}
    >
      <header>
        <h2 ref={heading} tabIndex={-1}>
          {title}
        </h2>
        {actions}
        <button type="button" className="ghost" aria-label={`Close ${title.toLowerCase()}`} onClick={onClose}>
          ×
        </button>
      </header>
      {children}
    </aside>
  );
}

/**
 * A panel's content changes under the focus: Connect gives way to the dataset list, "Sync 1
 * dataset" to the synced view, a form to its result. The browser then drops the focus to the page
 * body, and a keyboard user starts again from the top of the window. So when the element that had
 * the focus in the panel leaves the document and nothing else took the focus, `fallback` (the
 * panel's heading) takes it. Not when the person moved elsewhere first: a click outside the panel
 * or the focus going there forgets the panel's element.
 */
function useKeepFocusIn(panel: RefObject<HTMLElement | null>, fallback: RefObject<HTMLElement | null>) {
  useEffect(() => {
    const el = panel.current;
    if (!el) return;
    let last: Element | null = null;
    const inside = (e: Event) => e.target instanceof Node && el.contains(e.target);
    const onFocusIn = (e: FocusEvent) => {
      last = inside(e) ? (e.target as Element) : null;
    };
    const onPointerDown = (e: PointerEvent) => {
      if (!inside(e)) last = null;
    };
    // Mutation records arrive after React's commit, so a list entry's own focus move
    // (useFocusOnLeave) has already happened by then.
    const observer = new MutationObserver(() => {
      if (!last || last.isConnected) return;
      last = null;
      const a = document.activeElement;
      if (a === null || a === document.body) fallback.current?.focus();
    });
    observer.observe(el, { childList: true, subtree: true });
    document.addEventListener('focusin', onFocusIn);
    document.addEventListener('pointerdown', onPointerDown, true);
    return () => {
      observer.disconnect();
      document.removeEventListener('focusin', onFocusIn);
      document.removeEventListener('pointerdown', onPointerDown, true);
    };
  }, [panel, fallback]);
}
