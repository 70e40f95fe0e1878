import { lazy, Suspense, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { checkValue, fieldType } from '../../../shared/fieldTypes';
import { draftOf, keepDraft, useEdits, useHasDraft } from '../lib/edits';
import { normaliseTypedDecimal } from '../lib/numbers';
import type { FieldProps } from './types';

const Markdown = lazy(() => import('react-markdown'));

const shown = (v: string | number | null | undefined) => (v === null || v === undefined ? '' : String(v));

/**
 * Text, number and date fields: a draft while typing, validated with the service's own rules
 * (shared/fieldTypes), saved on Enter or leaving the field, reverted with Escape. A draft that
 * cannot be saved stays, marked "Not saved", even across leaving and reopening the record.
 */
export function ScalarField({ top, record, field, entry, labelId }: FieldProps) {
  const type = fieldType(field.fieldtype);
  const saved = shown(entry?.value);
  const initial = draftOf(record, field.field_uuid) ?? saved;
  const [draft, setDraftState] = useState(initial);
  // The latest draft for handlers that run before a re-render (Escape, then the blur it causes).
  const current = useRef(initial);
  // What goes to the service: a decimal typed the locale's way ("1,5") in its notation ("1.5").
  const toSend = (v: string) => (type.storage === 'decimal' ? normaliseTypedDecimal(v) : v);
  const problem = (v: string) => {
    if (v === saved) return null;
    const c = checkValue(type, toSend(v));
    return c.ok ? null : c.message;
  };
  const setDraft = (v: string) => {
    current.current = v;
    setDraftState(v);
    keepDraft(top, record, field.field_uuid, v === saved ? undefined : v, problem(v));
  };
  const [preview, setPreview] = useState(false);
  const editing = useRef(false);
  const errId = useId();
  const { apply } = useEdits();
  // Once nothing typed is left (saved, or taken back), the field shows its saved value: also when
  // that value is the same as at the last render, as after Enter and Ctrl+Z in one task (the
  // undo's copy is in the cache at once) — following `saved` alone kept the undone text shown.
  const hasDraft = useHasDraft(record, field.field_uuid);
  useEffect(() => {
    if (!editing.current && draftOf(record, field.field_uuid) === undefined) {
      current.current = saved;
      setDraftState(saved);
    }
  }, [saved, record, field.field_uuid, hasDraft]);

  const error = problem(draft);

  // Whether something typed is unsaved is the draft store's answer, not `saved` of the last
  // render: keys are handled before the re-render a save causes (Chromium runs input before
  // timers), and Enter then Escape at once would read the old value, take the saved text for a
  // draft, revert it and keep the focus; the blur after it would send the same edit twice.
  const unsaved = () => draftOf(record, field.field_uuid) !== undefined;

  const commit = () => {
    editing.current = false;
    const value = current.current;
    if (!unsaved()) return;
    if (problem(value)) return; // stays a draft, marked "Not saved"
    keepDraft(top, record, field.field_uuid, undefined, null);
    apply({
      kind: 'value',
      top,
      record,
      field: { uuid: field.field_uuid, name: field.name },
      boolean: false,
      before: entry?.value ?? '',
      after: toSend(value),
    });
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    if (e.key === 'Escape') {
      editing.current = false;
      // Nothing typed: Escape goes on to the pane, back to the list. A draft: the first Escape
      // takes it back and the focus stays in the field (blurring would leave it nowhere).
      if (!unsaved()) return;
      e.preventDefault();
      e.stopPropagation();
      setDraft(saved);
    } else if (e.key === 'Enter' && (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      commit();
    }
  };
  const common = {
    'aria-labelledby': labelId,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? errId : undefined,
    value: draft,
    onChange: (e: { target: { value: string } }) => {
      editing.current = true;
      setDraft(e.target.value);
    },
    onBlur: commit,
    onKeyDown: onKey,
  };
  const multiline = type.editor === 'paragraph' || type.editor === 'markdown';
  return (
    <div className="scalar">
      {type.editor === 'markdown' && (
        <div className="md-toggle" role="group" aria-label={`${field.name} view`}>
          <button type="button" aria-pressed={!preview} onClick={() => setPreview(false)}>
            Write
          </button>
          <button type="button" aria-pressed={preview} onClick={() => setPreview(true)}>
            Preview
          </button>
        </div>
      )}
      {preview ? (
        <div className="md-preview" aria-label={`${field.name} preview`}>
          <Suspense fallback={<p>…</p>}>
            <Markdown>{draft}</Markdown>
          </Suspense>
        </div>
      ) : multiline ? (
        <textarea rows={type.editor === 'markdown' ? 6 : 3} {...common} />
      ) : (
        <input
          type={type.editor === 'datetime' ? 'date' : 'text'}
          inputMode={type.editor === 'integer' ? 'numeric' : type.editor === 'decimal' ? 'decimal' : undefined}
          {...common}
        />
      )}
      {error && (
        <p id={errId} className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

export function BooleanField({ top, record, field, entry, labelId }: FieldProps) {
  const { apply } = useEdits();
  const on = entry?.selected === 1;
  return (
    <input
      type="checkbox"
      aria-labelledby={labelId}
      checked={on}
      onChange={(e) =>
        apply({
          kind: 'value',
          top,
          record,
          field: { uuid: field.field_uuid, name: field.name },
          boolean: true,
          before: on ? 1 : 0,
          after: e.target.checked ? 1 : 0,
        })
      }
    />
  );
}
