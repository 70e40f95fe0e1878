import { useEffect, useRef, type ReactNode, type RefObject } from 'react';
import { createStore, useStore } from '../lib/store';

interface Ask {
  title: string;
  body: string;
  confirm: string;
  danger?: boolean;
  resolve: (ok: boolean) => void;
}

const asking = createStore<Ask | null>(null);

/**
 * An in-app confirmation (never the browser's pop-up): resolves true on the confirm button,
 * false on Cancel or Escape. Focus goes to Cancel and comes back where it was.
 */
export function confirmDialog(o: Omit<Ask, 'resolve'>): Promise<boolean> {
  asking.get()?.resolve(false);
  return new Promise((resolve) => asking.set({ ...o, resolve }));
}

export function Dialogs() {
  const ask = useStore(asking, (a) => a);
  const ref = useRef<HTMLDialogElement>(null);
  const back = useRef<Element | null>(null);
  useEffect(() => {
    const d = ref.current;
    if (!ask || !d) return;
    back.current = document.activeElement;
    if (!d.open) d.showModal();
    d.querySelector<HTMLButtonElement>('button[value=cancel]')?.focus();
  }, [ask]);
  if (!ask) return null;
  const close = (ok: boolean) => {
    ref.current?.close();
    asking.set(null);
    ask.resolve(ok);
    if (back.current instanceof HTMLElement && back.current.isConnected) back.current.focus();
  };
  return (
    <dialog
      ref={ref}
      className="confirm"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-body"
      onCancel={(e) => {
        e.preventDefault();
        close(false);
      }}
    >
      <h2 id="confirm-title">{ask.title}</h2>
      <p id="confirm-body">{ask.body}</p>
      <div className="confirm-actions">
        <button type="button" value="cancel" onClick={() => close(false)}>
          Cancel
        </button>
        <button type="button" className={ask.danger ? 'danger-solid' : 'primary'} onClick={() => close(true)}>
          {ask.confirm}
        </button>
      </div>
    </dialog>
  );
}

/** Opens a <dialog> as modal when it mounts; when it unmounts the focus goes back to what had it. */
export function useModal(ref: RefObject<HTMLDialogElement | null>) {
  useEffect(() => {
    const back = document.activeElement;
    ref.current?.showModal();
    return () => {
      if (back instanceof HTMLElement && back.isConnected) back.focus();
    };
  }, [ref]);
}

/** A modal <dialog> titled by `labelledBy`: Escape (or `onClose`) closes it, the focus goes back. */
export function Modal({
  className,
  labelledBy,
  onClose,
  children,
}: {
  className: string;
  labelledBy: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useModal(ref);
  return (
    <dialog
      ref={ref}
      className={className}
      aria-labelledby={labelledBy}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {children}
    </dialog>
  );
}
