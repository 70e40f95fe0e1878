import { useEffect, useRef, useState, type ReactNode } from 'react';
import { ScalarField } from '../editor/ScalarField';
import type { FieldProps } from '../editor/types';

/**
 * A text field shown formatted (formula, link) until the user edits it; editing shows the raw
 * text in the ordinary editor, which saves on Enter or leaving the field as everywhere else.
 */
export function ViewThenEdit({ props, children }: { props: FieldProps; children: ReactNode }) {
  const [editing, setEditing] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (editing) box.current?.querySelector<HTMLElement>('input, textarea')?.focus();
  }, [editing]);
  if (editing) {
    return (
      <div
        ref={box}
        className="plugin-editing"
        onBlur={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setEditing(false);
        }}
      >
        <ScalarField {...props} />
      </div>
    );
  }
  const empty = props.entry?.value === undefined || props.entry?.value === null || props.entry?.value === '';
  return (
    <div className="plugin-view" aria-labelledby={props.labelId}>
      <span className="plugin-value">{empty ? <span className="muted">empty</span> : children}</span>
      <button type="button" className="link" onClick={() => setEditing(true)} aria-label={`Edit ${props.field.name}`}>
        Edit
      </button>
    </div>
  );
}
