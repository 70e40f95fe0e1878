import { useEffect, useRef, type ReactNode } from 'react';

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
  useEffect(() => {
    const back = document.activeElement;
    heading.current?.focus();
    return () => {
      if (back instanceof HTMLElement && back.isConnected) back.focus();
    };
  }, []);
  return (
    <aside
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
