import type { ReactNode } from 'react';

/** The right-hand panel (Jobs, Sync, Settings): a titled landmark with a close button. */
export function SidePanel({ title, className = '', actions, onClose, children }: {
  title: string; className?: string; actions?: ReactNode; onClose: () => void; children: ReactNode;
}) {
  return (
    <aside className={`jobs ${className}`.trim()} aria-label={title}>
      <header>
        <h2>{title}</h2>
        {actions}
        <button type="button" className="ghost" aria-label={`Close ${title.toLowerCase()}`} onClick={onClose}>×</button>
      </header>
      {children}
    </aside>
  );
}
