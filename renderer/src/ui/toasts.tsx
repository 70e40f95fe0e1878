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

/** Shows a message; errors stay until dismissed, others go after `ms`. */
export function toast(t: Omit<Toast, 'id'>, ms = t.kind === 'error' ? 0 : 5000): number {
  const id = next++;
  store.set((l) => [...l.slice(-4), { ...t, id }]);
  if (ms > 0) setTimeout(() => dismiss(id), ms);
  return id;
}

export function Toasts() {
  const list = useStore(store, (l) => l);
  return (
    <div className="toasts" role="region" aria-label="Messages" aria-live="polite">
      {list.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'}>
          <span>{t.text}</span>
          {t.action && (
            <button
              type="button"
              onClick={() => {
                t.action!.run();
                dismiss(t.id);
              }}
            >
              {t.action.label}
            </button>
          )}
          <button type="button" className="ghost" aria-label="Dismiss message" onClick={() => dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
