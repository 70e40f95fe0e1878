import { useSyncExternalStore } from 'react';

/** A tiny observable value for app-wide UI state (toasts, field save status). */
export function createStore<T>(initial: T) {
  let value = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => value,
    set(next: T | ((v: T) => T)) {
      value = typeof next === 'function' ? (next as (v: T) => T)(value) : next;
      for (const l of listeners) l();
    },
    subscribe(l: () => void) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
}

export function useStore<T, S>(store: ReturnType<typeof createStore<T>>, select: (v: T) => S): S {
  return useSyncExternalStore(store.subscribe, () => select(store.get()));
}
