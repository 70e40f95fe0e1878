import { useId, useState } from 'react';
import { fieldType } from '../../../shared/fieldTypes';
import type { FieldEntry, OdrRecord } from '../../../shared/schemas/record';
import type { Template, TemplateField } from '../../../shared/schemas/template';
import { errorText } from '../lib/api';
import { useEdits, type Edit } from '../lib/edits';
import { describeStep, historySteps, itemNames, type HistoryStep } from '../lib/history';
import { useRecord, useRecordHistory } from '../lib/queries';
import { findRecord } from '../../../shared/recordTree';
import { Time } from '../ui/Time';

/**
 * The edits that put a field back to how it was before `step` — ordinary edits, so they are
 * logged, synced and undoable like any other. Null when there is nothing to restore (files,
 * public status, a value that is already the current one).
 */
export function restoreEdits(top: string, step: HistoryStep, field: TemplateField, entry: FieldEntry | undefined): Edit[] | null {
  const type = fieldType(field.fieldtype);
  const f = { uuid: field.field_uuid, name: field.name };
  if (step.kind === 'value') {
    if (type.storage === 'boolean') {
      const want = Number(step.old) ? 1 : 0;
      const now = entry?.selected === 1 ? 1 : 0;
      return want === now ? null : [{ kind: 'value', top, record: step.record, field: f, boolean: true, before: now, after: want }];
    }
    const now = entry?.value ?? '';
    const want = step.old === null || step.old === undefined ? '' : (step.old as string | number);
    return String(now) === String(want)
      ? null
      : [{ kind: 'value', top, record: step.record, field: f, boolean: false, before: now, after: want }];
  }
  if (step.kind !== 'options') return null;
  const tags = type.storage === 'tags';
  const selected = new Set(
    tags ? (entry?.tags ?? []).map((t) => t.template_tag_uuid) : (entry?.values ?? []).map((v) => v.template_radio_option_uuid),
  );
  const names = itemNames(field);
  // Each edit's `before` is the selection the ones ahead of it leave: its undo expects exactly that.
  const held = new Set(selected);
  const edit = (uuid: string, on: boolean): Edit => {
    const before = [...held].map((u) => ({ uuid: u, name: names.get(u) ?? '' }));
    if (type.single) held.clear();
    if (on) held.add(uuid);
    else held.delete(uuid);
    return {
      kind: 'option',
      top,
      record: step.record,
      field: f,
      option: { uuid, name: names.get(uuid) ?? '' },
      on,
      single: !!type.single,
      tags,
      before,
    };
  };
  if (type.single) {
    const want = step.removed[0];
    if (want) return selected.has(want) ? null : [edit(want, true)];
    const added = step.added[0];
    return added && selected.has(added) ? [edit(added, false)] : null;
  }
  const edits = [
    ...step.added.filter((u) => selected.has(u)).map((u) => edit(u, false)),
    ...step.removed.filter((u) => !selected.has(u) && names.has(u)).map((u) => edit(u, true)),
  ];
  return edits.length ? edits : null;
}

/** Where a step came from, in words (local steps need no mark). */
const ORIGIN_LABELS: Record<string, string> = { sync: 'from sync', import: 'imported' };

const fieldsOf = (tpl: Template): TemplateField[] => [...tpl.fields, ...tpl.related_databases.flatMap(fieldsOf)];

function Step({
  top,
  step,
  field,
  rec,
  named,
}: {
  top: string;
  step: HistoryStep;
  field: TemplateField | undefined;
  rec: OdrRecord | undefined;
  named: boolean;
}) {
  const { apply } = useEdits();
  const d = describeStep(step, field);
  const entry = rec && field ? findRecord(rec, step.record)?.fields.find((e) => e.field_uuid === field.field_uuid) : undefined;
  const edits = field && rec && findRecord(rec, step.record) ? restoreEdits(top, step, field, entry) : null;
  const what =
    step.kind === 'public' ? 'Public status' : step.kind === 'create' ? 'Record' : (field?.name ?? 'A field no longer in the template');
  return (
    <li className="history-step" data-kind={step.kind}>
      <div className="history-meta">
        <Time ts={step.at} zone />
        <span>{step.who}</span>
        {step.origin !== 'local' && <span className="badge">{ORIGIN_LABELS[step.origin] ?? step.origin}</span>}
      </div>
      <div className="history-change">
        {named && <span className="history-field">{what}: </span>}
        {'text' in d ? (
          <span>{d.text}</span>
        ) : (
          <>
            <span className="history-old">{d.before}</span>
            <span aria-label="changed to"> → </span>
            <span className="history-new">{d.after}</span>
          </>
        )}
        {edits && (
          <button
            type="button"
            className="link"
            aria-label={`Restore this value: ${field!.name} ${'before' in d ? `back to “${d.before}”` : 'as it was before this change'}`}
            onClick={() => {
              for (const e of edits) apply(e);
            }}
          >
            Restore this value
          </button>
        )}
      </div>
    </li>
  );
}

/** The list itself: steps of a record tree, optionally one record's field only. */
function Steps({ top, tpl, record, field }: { top: string; tpl?: Template; record?: string; field?: TemplateField }) {
  const { data, error, isPending } = useRecordHistory(top, true);
  const { data: rec } = useRecord(top);
  if (isPending) return <p className="muted small">Loading history…</p>;
  if (error) return <p role="alert">History could not be read: {errorText(error)}</p>;
  const fields = new Map((tpl ? fieldsOf(tpl) : field ? [field] : []).map((f) => [f.field_uuid, f]));
  const steps = historySteps(data.entries).filter((s) => !field || (s.field === field.field_uuid && s.record === record));
  if (!steps.length) return <p className="muted small">No changes recorded{field ? ' for this field' : ''}.</p>;
  return (
    <ol className="history-list">
      {steps.map((s) => (
        <Step key={s.key} top={top} step={s} field={s.field ? fields.get(s.field) : undefined} rec={rec} named={!field} />
      ))}
      {data.more && <li className="muted small">Older changes are not shown.</li>}
    </ol>
  );
}

/** "History" beside a field's name: its changes under the field, with "Restore this value". */
export function useFieldHistory(top: string, record: string, field: TemplateField) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const button = (
    <button
      type="button"
      className="link small history-toggle"
      aria-expanded={open}
      aria-controls={id}
      aria-label={`History of ${field.name}`}
      onClick={() => setOpen((o) => !o)}
    >
      History
    </button>
  );
  const panel = open ? (
    <div id={id} className="field-history" role="region" aria-label={`History of ${field.name}`}>
      <Steps top={top} record={record} field={field} />
    </div>
  ) : null;
  return { button, panel };
}

/** The whole record's history (its child records' too), newest first. */
export function RecordHistoryPanel({ top, tpl }: { top: string; tpl: Template }) {
  return (
    <section className="record-history" aria-label="Record history">
      <h3>History</h3>
      <Steps top={top} tpl={tpl} />
    </section>
  );
}
