import { useRef } from 'react';
import { createStore, useStore } from '../lib/store';

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  text: string;
  action?: { label: string; run: () => void };
}

const store = createStore<Toast[]>([]);
let next = 1;

export function dismiss(id: number) {
  store.set((l) => l.filter((t) => t.id !== id));
}

export const isShown = (id: number) => store.get().some((t) => t.id === id);

/** Shows a message; errors stay until dismissed, others go after `ms`. */
export function toast(t: Omit<Toast, 'id'>, ms = t.kind === 'error' ? 0 : 5000): number {
  const id = next++;
  store.set((l) => [...l.slice(-4), { ...t, id }]);
  if (ms > 0) setTimeout(() => dismiss(id), ms);
  return id;
}

export function Toasts() {
  const list = useStore(store, (l) => l);
  // A notice's buttons go with it: the focus goes back to where it was before it came here.
  const from = useRef<Element | null>(null);
  const region = useRef<HTMLDivElement>(null);
  const leave = () => {
    const to = from.current;
    if (to instanceof HTMLElement && to.isConnected && !region.current?.contains(to)) to.focus();
  };
  return (
    <div
      ref={region}
      className="toasts"
      role="region"
      aria-label="Messages"
      aria-live="polite"
      onFocus={(e) => {
        if (e.relatedTarget && !e.currentTarget.contains(e.relatedTarget)) from.current = e.relatedTarget;
      }}
    >
      {list.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'}>
          <span>{t.text}</span>
          {t.action && (
            <button
              type="button"
              onClick={() => {
                t.action!.run();
                dismiss(t.id);
                leave();
              }}
            >
              {t.action.label}
            </button>
          )}
          <button
            type="button"
            className="ghost"
            aria-label="Dismiss message"
            onClick={() => {
              dismiss(t.id);
              leave();
            }}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
