import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { PRIVATE_DATE, formatTimestamp } from '../../../shared/dates';
import { FIELD_TYPE_NAMES, FIELD_TYPES, fieldType } from '../../../shared/fieldTypes';
import type { OdrRecord } from '../../../shared/schemas/record';
import type { Template, TemplateField } from '../../../shared/schemas/template';
import { api, errorText, notFound, type Session } from '../lib/api';
import { dateTitle, fromWire, localInputToWire, showLocal, zoneName } from '../lib/dates';
import { draftsUnder, useShownEntry } from '../lib/edits';
import { inOrder } from '../lib/inOrder';
import { Time } from '../ui/Time';
import { focusInPlace } from '../lib/focusInPlace';
import { recordName } from '../../../shared/recordName';
import { keys, useRecord } from '../lib/queries';
import { PluginNote, pluginEditorFor } from '../plugins';
import { toast } from '../ui/toasts';
import { ChildRecords } from './ChildRecords';
import { FilesField } from './FilesField';
import { keepHeadClearance } from './headClearance';
import { ImageViewer } from './ImageViewer';
import { RecordHistoryPanel, useFieldHistory } from './History';
import './pane.css';
import { OptionsField, TagsField } from './OptionsField';
import { SaveBadge } from './SaveBadge';
import { BooleanField, ScalarField } from './ScalarField';
import type { FieldProps } from './types';
import { SteadyButton } from '../ui/SteadyButton';

function editorFor(f: TemplateField): ((p: FieldProps) => ReactNode) | null {
  switch (fieldType(f.fieldtype).editor) {
    case 'boolean':
      return BooleanField;
    case 'single-option':
    case 'multi-option':
      return OptionsField;
    case 'tags':
      return TagsField;
    case 'file':
    case 'image':
      return FilesField;
    case 'none':
      return null;
    default:
      return ScalarField;
  }
}

function Field({
  top,
  record,
  dataset,
  field,
  rec,
}: {
  top: string;
  record: string;
  dataset: string;
  field: TemplateField;
  rec: OdrRecord;
}) {
  const labelId = useId();
  const Editor = pluginEditorFor(field) ?? editorFor(field);
  // An edit in flight shows at once (useShownEntry); the record's copy follows a tick later.
  const entry = useShownEntry(record, field.field_uuid) ?? rec.fields.find((e) => e.field_uuid === field.field_uuid);
  const history = useFieldHistory(top, record, field);
  return (
    <div className="field" data-fieldtype={field.fieldtype} data-field={field.field_uuid}>
      <div className="field-head">
        <span id={labelId} className="field-name">
          {field.name}
        </span>
        <span className="field-type">{field.fieldtype}</span>
        <PluginNote plugins={field.render_plugins} />
        <SaveBadge record={record} field={field.field_uuid} name={field.name} />
        {history.button}
      </div>
      {Editor ? (
        <Editor top={top} record={record} dataset={dataset} field={field} entry={entry} labelId={labelId} />
      ) : (
        <p className="muted">Not editable here ({field.fieldtype})</p>
      )}
      {history.panel}
    </div>
  );
}

/** When a record is public: private, public since a date, or scheduled to become public (local time, zone named). */
export function publicState(date: string, now = new Date()): { label: string; kind: 'private' | 'public' | 'scheduled' } {
  if (date === PRIVATE_DATE) return { label: 'Private', kind: 'private' };
  return date <= formatTimestamp(now)
    ? { label: `Public since ${showLocal(date)}`, kind: 'public' }
    : { label: `Scheduled: public from ${showLocal(date)}`, kind: 'scheduled' };
}

function PublicControl({ top, dataset, rec, session }: { top: string; dataset: string; rec: OdrRecord; session: Session }) {
  const qc = useQueryClient();
  const [when, setWhen] = useState('');
  const date = rec._record_metadata._public_date;
  const state = publicState(date);
  // The date typed is the user's wall clock; the service stores UTC.
  const wire = localInputToWire(when);
  const set = async (public_date?: string) => {
    try {
      // Two clicks in a row: the record keeps the second.
      await inOrder(`public:${rec.record_uuid}`, () =>
        api.setPublic({
          user_email: session.email,
          dataset_uuid: dataset,
          record_uuid: rec.record_uuid,
          ...(public_date ? { public_date } : {}),
        }),
      );
      toast(
        {
          kind: 'info',
          text:
            public_date === PRIVATE_DATE
              ? 'The record is private'
              : public_date
                ? `Public from ${showLocal(public_date)}`
                : 'The record is public',
        },
        3000,
      );
    } catch (e) {
      toast({ kind: 'error', text: `Public status not changed: ${errorText(e)}` });
    }
    void qc.invalidateQueries({ queryKey: keys.record(top) });
  };
  return (
    <div className="public" role="group" aria-label="Public status">
      <span className={`badge badge-${state.kind}`} data-testid="public-state" title={date === PRIVATE_DATE ? undefined : dateTitle(date)}>
        {state.label}
      </span>
      {/* Already public: publishing again would replace the date it first became public. */}
      <SteadyButton
        disabled={state.kind === 'public'}
        title={state.kind === 'public' ? 'Already public; its public date is kept' : undefined}
        onClick={() => void set()}
      >
        Make public now
      </SteadyButton>
      <label className="inline">
        <span>Public from</span>
        <input type="datetime-local" value={when} onChange={(e) => setWhen(e.target.value)} aria-label="Public from date" />
        {wire && <span className="muted small">{zoneName(fromWire(wire)!)}</span>}
      </label>
      <button type="button" disabled={!wire} onClick={() => wire && void set(wire)}>
        Set date
      </button>
      {/* Stays when private (unavailable): pressed, it would otherwise take the focus with it. */}
      <SteadyButton className="link" disabled={state.kind === 'private'} onClick={() => void set(PRIVATE_DATE)}>
        Make private
      </SteadyButton>
    </div>
  );
}

function RecordBody({ top, rec, tpl, depth }: { top: string; rec: OdrRecord; tpl: Template; depth: number }) {
  return (
    <>
      <div className="fields">
        {tpl.fields.map((f) => (
          <Field key={f.field_uuid} top={top} record={rec.record_uuid} dataset={tpl.template_uuid} field={f} rec={rec} />
        ))}
      </div>
      {tpl.related_databases.map((child) => (
        <ChildRecords
          key={child.template_uuid}
          top={top}
          parent={rec}
          child={child}
          body={(c) => <RecordBody top={top} rec={c} tpl={child} depth={depth + 1} />}
        />
      ))}
    </>
  );
}

/**
 * Where typing lands, best first: a Short Text field (where names and IDs live), another text
 * field, a number or date, then anything (a checkbox or list ignores typed keys).
 */
const inputsOf = (types: readonly string[]) => types.map((t) => `.fields .field[data-fieldtype="${t}"] :is(input, textarea)`).join(', ');
const FOCUS_ORDER = [
  inputsOf(['Short Text']),
  inputsOf(FIELD_TYPE_NAMES.filter((t) => FIELD_TYPES[t].storage === 'text')),
  '.fields input:not([type=file]):not([type=checkbox]):not([type=radio]):not([type=hidden]), .fields textarea',
  '.fields input:not([type=file]), .fields textarea, .fields select',
];

export function RecordEditor({
  uuid,
  tpl,
  session,
  datasetName,
  position,
  focusFirst,
  onFocused,
  onPrev,
  onNext,
  onEscape,
  onClose,
  onDelete,
  onGone,
  refocus,
}: {
  uuid: string;
  tpl: Template;
  session: Session;
  datasetName: string;
  /** Where the record sits in the list, for "12 of 40" and the previous/next buttons. */
  /** `atLeast`: the total is a lower bound (the service's count stopped there); Next may go past it. */
  position?: { index: number; total: number; atLeast?: boolean };
  /** Put the focus in the first field once the record is shown (Enter, double-click, new record). */
  focusFirst: boolean;
  onFocused: () => void;
  onPrev: () => void;
  onNext: () => void;
  onEscape: () => void;
  onClose: () => void;
  onDelete: (uuid: string) => void;
  /** The service no longer has it: what still holds it (the selection) lets go. */
  onGone: (uuid: string) => void;
  /** A selector for the control to focus once shown: the one that had the focus in the pane before (paneFocusKey). */
  refocus?: RefObject<string | null>;
}) {
  const { data: rec, error, isPending } = useRecord(uuid);
  const gone = notFound(error);
  useEffect(() => {
    if (gone) onGone(uuid);
  }, [gone, uuid, onGone]);
  const pane = useRef<HTMLElement>(null);
  const [showHistory, setShowHistory] = useState(false);
  const name = rec ? recordName(rec, tpl) : '';
  const nameRef = useRef('');
  nameRef.current = name || 'This record';
  // Leaving a record keeps what could not be saved, and says so.
  useEffect(
    () => () => {
      const n = draftsUnder(uuid);
      if (n)
        toast(
          {
            kind: 'info',
            text: `${nameRef.current}: ${n} field${n === 1 ? '' : 's'} not saved; the typed text is kept for when you return`,
          },
          6000,
        );
    },
    [uuid],
  );
  // One title write per record shown (each costs the page ~2 ms): moving to the next record
  // names it at once, the dataset's title comes back only when the pane closes.
  const datasetTitle = useRef('');
  datasetTitle.current = `${datasetName} — odr-desktop`;
  useEffect(() => {
    document.title = name ? `${name} — ${datasetName} — odr-desktop` : datasetTitle.current;
  }, [name, datasetName]);
  useEffect(
    () => () => {
      document.title = datasetTitle.current;
    },
    [],
  );
  useLayoutEffect(() => {
    const selector = refocus?.current;
    if (!selector) return;
    // While the record loads, the pane itself holds the focus (its keys still reach the screen).
    if (!rec) return focusInPlace(pane.current);
    refocus.current = null;
    focusInPlace(pane.current?.querySelector<HTMLElement>(selector));
  }, [rec, refocus]);
  useEffect(() => {
    if (!focusFirst || !rec) return;
    // Typing must land: a checkbox or a list ignores keys, so it gets the focus only when the
    // record has nothing else.
    for (const sel of FOCUS_ORDER) {
      const el = pane.current?.querySelector<HTMLElement>(sel);
      if (el) {
        focusInPlace(el);
        break;
      }
    }
    onFocused();
  }, [focusFirst, rec, onFocused]);

  const nav = (
    <div className="record-nav" role="group" aria-label="Move between records">
      <SteadyButton
        type="button"
        onClick={onPrev}
        disabled={!position || position.index <= 0}
        aria-label="Previous record"
        title="Previous record (Alt+↑)"
      >
        ‹
      </SteadyButton>
      {position && (
        <span className="muted small">
          {(position.index + 1).toLocaleString()} of {position.total.toLocaleString()}
          {position.atLeast ? '+' : ''}
        </span>
      )}
      <SteadyButton
        type="button"
        onClick={onNext}
        disabled={!position || (!position.atLeast && position.index >= position.total - 1)}
        aria-label="Next record"
        title="Next record (Alt+↓)"
      >
        ›
      </SteadyButton>
    </div>
  );
  if (isPending)
    return (
      <aside ref={pane} tabIndex={-1} className="editor" aria-busy="true" aria-label="Loading record">
        <p className="muted">Loading record…</p>
      </aside>
    );
  if (error || !rec) {
    return (
      <aside className="editor" aria-label="Record not loaded">
        <p role="alert">
          {gone
            ? 'This record is not here any more: it was deleted (in this window, another one, or by a sync), or you may no longer see it. A deleted record can be put back from the Trash for 30 days.'
            : `This record could not be loaded: ${errorText(error)}`}
        </p>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </aside>
    );
  }
  const by = rec._record_metadata._create_auth ? ` · by ${rec._record_metadata._create_auth}` : '';
  const updated = String(rec._record_metadata._update_date ?? rec._record_metadata._updated_date ?? '');
  return (
    <aside
      ref={pane}
      tabIndex={-1}
      className="editor"
      aria-label={`Record ${name}`}
      onKeyDown={(e) => {
        // A field's own Escape (revert the draft) stops here; otherwise Escape goes back to the list.
        if (e.key === 'Escape' && !e.defaultPrevented) {
          e.preventDefault();
          onEscape();
        }
      }}
    >
      {/* Compact as a desktop app's: the name with Close (×) at its row's end, the meta line, then
          the actions on one row even in a 1024 px window's pane; beside the meta line in a pane
          wide enough (headClearance keeps the pane's scroll padding at the header's height). */}
      <header ref={keepHeadClearance} className="editor-head">
        <div className="editor-title">
          <h2>{name}</h2>
          <button
            type="button"
            className="ghost editor-close"
            onClick={onClose}
            aria-label="Close record"
            title="Close (Escape in the list)"
          >
            ×
          </button>
        </div>
        <div className="editor-sub">
          <p className="muted small editor-meta" title={`#${rec.internal_id}${by} · updated ${dateTitle(updated)}`}>
            {/* ODR keeps who created a record, not who changed it last: "updated … by" named the
                creator as the last editor. One line in the narrowest pane (e2e/recordHead.spec.ts),
                cut short when a long name would wrap it; whole in its title. */}
            #{rec.internal_id}
            {by} · updated <Time ts={updated} />
          </p>
          <div className="editor-actions">
            {nav}
            <button type="button" aria-pressed={showHistory} onClick={() => setShowHistory((h) => !h)}>
              History
            </button>
            <button type="button" className="danger" onClick={() => onDelete(rec.record_uuid)}>
              Delete record
            </button>
          </div>
        </div>
      </header>
      <PublicControl top={uuid} dataset={tpl.template_uuid} rec={rec} session={session} />
      {showHistory && <RecordHistoryPanel top={uuid} tpl={tpl} />}
      <RecordBody top={uuid} rec={rec} tpl={tpl} depth={0} />
      <ImageViewer />
    </aside>
  );
}
