import { useEffect, useRef, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import { createStore, useStore } from '../lib/store';
import type { Question } from './question';

export type { Question };

interface Ask extends Question {
  resolve: (ok: boolean) => void;
}

const asking = createStore<Ask | null>(null);

/**
 * An in-app confirmation (never the browser's pop-up): resolves true on the confirm button,
 * false on Cancel or Escape. Focus goes to Cancel and comes back where it was.
 */
export function confirmDialog(o: Question): Promise<boolean> {
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
    d.querySelector<HTMLButtonElement>('.confirm-actions button')?.focus();
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
      onKeyDown={(e) => e.stopPropagation()}
    >
      <h2 id="confirm-title">{ask.title}</h2>
      <p id="confirm-body">{ask.body}</p>
      <DialogActions
        secondary={{ label: 'Cancel', onClick: () => close(false) }}
        primary={{ label: ask.confirm, danger: ask.danger, onClick: () => close(true) }}
      />
    </dialog>
  );
}

interface ActionButton {
  label: ReactNode;
  /** Without it the button submits the dialog's form. */
  onClick?: () => void;
  disabled?: boolean;
  danger?: boolean;
}

/**
 * Every dialog's footer: the way out (Cancel, Close, Reset) on the left of the one action it is
 * for, drawn as the primary (or danger) button. `children` stand in for the primary button when
 * the action is something else (a download link).
 */
export function DialogActions({ secondary, primary, children }: { secondary: ActionButton; primary?: ActionButton; children?: ReactNode }) {
  return (
    <div className="confirm-actions">
      <button type="button" disabled={secondary.disabled} onClick={secondary.onClick}>
        {secondary.label}
      </button>
      {primary && (
        <button
          type={primary.onClick ? 'button' : 'submit'}
          className={primary.danger ? 'danger-solid' : 'primary'}
          disabled={primary.disabled}
          onClick={primary.onClick}
        >
          {primary.label}
        </button>
      )}
      {children}
    </div>
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

/**
 * A modal <dialog> titled by `labelledBy`: Escape (or `onClose`) closes it, the focus goes back.
 * While `busy` (a job or batch it runs), Escape does nothing. Keys pressed inside stay inside:
 * React would otherwise hand them to the record pane or list around it (Escape there means "back
 * to the list") and to the window's shortcuts (undo, next record).
 */
export function Modal({
  className,
  labelledBy,
  label,
  busy = false,
  onClose,
  onKeyDown,
  dialogRef,
  children,
}: {
  className: string;
  labelledBy?: string;
  label?: string;
  busy?: boolean;
  onClose: () => void;
  onKeyDown?: (e: KeyboardEvent<HTMLDialogElement>) => void;
  dialogRef?: RefObject<HTMLDialogElement | null>;
  children: ReactNode;
}) {
  const own = useRef<HTMLDialogElement>(null);
  const ref = dialogRef ?? own;
  useModal(ref);
  return (
    <dialog
      ref={ref}
      className={className}
      aria-labelledby={labelledBy}
      aria-label={label}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onClose();
      }}
      onKeyDown={(e) => {
        e.stopPropagation();
        onKeyDown?.(e);
      }}
    >
      {children}
    </dialog>
  );
}
