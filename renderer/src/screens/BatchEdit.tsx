import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { checkValue, fieldType } from '../../../shared/fieldTypes';
import { MAX_BATCH, type BatchBefore, type BatchChange, type BatchSkipped } from '../../../shared/schemas/batch';
import type { Template, TemplateField } from '../../../shared/schemas/template';
import { choicesOf } from '../lib/choices';
import { batchEdit, errorText, recordTrash } from '../lib/api';
import { firstNames } from '../lib/namedRecords';
import { NAMED } from '../lib/namedList';
import { holdingEvents, offerUndo, pushOperation, useEdits, type Operation } from '../lib/edits';
import { normaliseTypedDecimal } from '../lib/numbers';
import { keys } from '../lib/queries';
import { DialogActions, Modal } from '../ui/Dialog';
import { toast } from '../ui/toasts';

const PUBLIC = '__public__';

/** Sends a change over many records in chunks of MAX_BATCH, reporting progress; answers every earlier state. */
function inChunks(
  dataset: string,
  records: string[],
  change: BatchChange,
  progress: (done: number) => void,
  before: BatchBefore[] = [],
): Promise<BatchBefore[]> {
  return holdingEvents(async () => {
    for (let i = 0; i < records.length; i += MAX_BATCH) {
      const r = await batchEdit(dataset, { records: records.slice(i, i + MAX_BATCH), change });
      before.push(...r.before);
      progress(Math.min(records.length, i + MAX_BATCH));
    }
    return before;
  });
}

/**
 * Puts back each record's earlier state where the record still holds what the batch left; answers
 * the records it had to leave (deleted or changed since), named as the user knows them, and drops
 * them from `before`.
 */
function restore(
  qc: QueryClient,
  dataset: string,
  field: string | undefined,
  before: BatchBefore[],
  tpl: Template,
): Promise<string | undefined> {
  return holdingEvents(async () => {
    const skipped: BatchSkipped[] = [];
    for (let i = 0; i < before.length; i += MAX_BATCH) {
      const r = await batchEdit(dataset, { records: [], change: { kind: 'restore', field, items: before.slice(i, i + MAX_BATCH) } });
      skipped.push(...(r.skipped ?? []));
    }
    if (!skipped.length) return undefined;
    // Not undone, so not to be redone either: the step forgets them.
    const gone = new Set(skipped.map((x) => x.record));
    before.splice(0, before.length, ...before.filter((b) => !gone.has(b.record)));
    return await leftAlone(qc, skipped, dataset, tpl);
  });
}

/** "S-000032 (deleted since), S-000007 (changed since)": a deleted record's name from the trash. */
async function leftAlone(qc: QueryClient, skipped: BatchSkipped[], dataset: string, tpl: Template): Promise<string> {
  const deleted = skipped.some((s) => s.reason === 'deleted') ? await recordTrash().catch(() => null) : null;
  const trashName = new Map((deleted?.records ?? []).map((e) => [e.record_uuid, e.name]));
  const live = await firstNames(
    qc,
    dataset,
    tpl,
    skipped.filter((s) => s.reason === 'changed').map((s) => s.record),
  );
  let k = 0;
  const named = skipped
    .slice(0, NAMED)
    .map((s) => (s.reason === 'deleted' ? `${trashName.get(s.record) ?? 'a record'} (deleted since)` : `${live[k++]} (changed since)`));
  const more = skipped.length - named.length;
  return `${named.join(', ')}${more > 0 ? ` and ${more.toLocaleString()} more` : ''} could not be put back and ${skipped.length === 1 ? 'was' : 'were'} left as ${skipped.length === 1 ? 'it is' : 'they are'}`;
}

/**
 * Batch edit of the selected records: one field (a value, an option or tag on/off) or the public
 * status, sent as one operation with a progress bar and undone as one step (Ctrl/Cmd+Z or Undo).
 */
export function BatchEdit({ dataset, tpl, records, onClose }: { dataset: string; tpl: Template; records: string[]; onClose: () => void }) {
  const qc = useQueryClient();
  const { undo: undoStep } = useEdits();
  const fields = tpl.fields.filter((f) => fieldType(f.fieldtype).takesValue || fieldType(f.fieldtype).takesOptions);
  const [fieldUuid, setField] = useState(fields[0]?.field_uuid ?? PUBLIC);
  const [value, setValue] = useState('');
  const [option, setOption] = useState('');
  const [on, setOn] = useState(true);
  const [done, setDone] = useState<number | null>(null);

  const f: TemplateField | undefined = fields.find((x) => x.field_uuid === fieldUuid);
  const type = f ? fieldType(f.fieldtype) : undefined;
  const choices = f ? choicesOf(f) : [];
  const sent = type?.storage === 'decimal' ? normaliseTypedDecimal(value) : value;
  const check = f && type!.takesValue && type!.storage !== 'boolean' ? checkValue(type!, sent) : null;
  const invalid = check && !check.ok ? check.message : null;
  const n = records.length.toLocaleString();

  const change = (): { change: BatchChange; label: string } | null => {
    if (!f) return { change: { kind: 'public', public: on }, label: `${on ? 'public' : 'private'} on ${n} records` };
    if (type!.storage === 'boolean')
      return {
        change: { kind: 'value', field: f.field_uuid, value: on ? 1 : 0 },
        label: `${f.name} ${on ? 'checked' : 'unchecked'} on ${n} records`,
      };
    if (type!.takesValue)
      return invalid
        ? null
        : { change: { kind: 'value', field: f.field_uuid, value: sent }, label: `${f.name} = “${sent}” on ${n} records` };
    const c = choices.find((x) => x.uuid === option);
    return c
      ? {
          change: { kind: 'option', field: f.field_uuid, option: c.uuid, on },
          label: `${f.name}: ${c.name} ${on ? 'selected' : 'unselected'} on ${n} records`,
        }
      : null;
  };
  const planned = change();

  const apply = async () => {
    if (!planned) return;
    setDone(0);
    const before: BatchBefore[] = [];
    const field = f?.field_uuid;
    const change = planned.change;
    // Undo puts back each changed record's earlier state; redo sets the same change on the same
    // records again and keeps what they held then, for the next undo.
    const op: Operation = {
      kind: 'batch',
      label: planned.label,
      undo: () => restore(qc, dataset, field, before, tpl),
      redo: async () => {
        const again = await inChunks(
          dataset,
          before.map((b) => b.record),
          change,
          () => {},
        );
        before.splice(0, before.length, ...again);
      },
    };
    const refresh = () => {
      void qc.invalidateQueries({ queryKey: ['record'] });
      void qc.invalidateQueries({ queryKey: ['history'] });
      // Every list: change events held during the batch may have named other datasets too.
      void qc.invalidateQueries({ queryKey: ['table'] });
      void qc.invalidateQueries({ queryKey: keys.datasets });
      void qc.invalidateQueries({ queryKey: keys.sync });
    };
    let failed: unknown = null;
    try {
      await inChunks(dataset, records, change, setDone, before);
    } catch (e) {
      failed = e;
    }
    if (before.length) pushOperation(op);
    if (failed)
      toast({
        kind: 'error',
        text: `Batch edit stopped: ${errorText(failed)}. ${before.length.toLocaleString()} records had changed before; Ctrl+Z takes them back.`,
      });
    else if (before.length) offerUndo(op, `Set ${planned.label} (${before.length.toLocaleString()} changed)`, 8000, undoStep);
    else toast({ kind: 'info', text: `Set ${planned.label}: every record held it already, nothing changed` });
    refresh();
    onClose();
  };

  return (
    <Modal className="confirm batch" labelledBy="batch-title" busy={done !== null} onClose={onClose}>
      <h2 id="batch-title">
        Batch edit {n} record{records.length === 1 ? '' : 's'}
      </h2>
      <div className="batch-form">
        <label>
          <span>Field</span>
          <select
            value={fieldUuid}
            onChange={(e) => {
              setField(e.target.value);
              setValue('');
              setOption('');
              setOn(true);
            }}
            disabled={done !== null}
          >
            {fields.map((x) => (
              <option key={x.field_uuid} value={x.field_uuid}>
                {x.name}
              </option>
            ))}
            <option value={PUBLIC}>Public status</option>
          </select>
        </label>
        {f && type!.takesValue && type!.storage !== 'boolean' && (
          <label>
            <span>New value (empty clears)</span>
            <input
              type="text"
              value={value}
              onChange={(e) => setValue(e.target.value)}
              aria-invalid={invalid ? true : undefined}
              disabled={done !== null}
            />
            {invalid && (
              <span className="field-error" role="alert">
                {invalid}
              </span>
            )}
          </label>
        )}
        {f && type!.takesOptions && (
          <label>
            <span>{type!.storage === 'tags' ? 'Tag' : 'Option'}</span>
            <select value={option} onChange={(e) => setOption(e.target.value)} disabled={done !== null}>
              <option value="">— choose —</option>
              {choices.map((c) => (
                <option key={c.uuid} value={c.uuid}>
                  {c.name}
                </option>
              ))}
            </select>
          </label>
        )}
        {(!f || type!.storage === 'boolean' || type!.takesOptions) && (
          <div className="choices" role="radiogroup" aria-label="Set to">
            <label className="choice">
              <input type="radio" name="batch-on" checked={on} onChange={() => setOn(true)} disabled={done !== null} />
              {!f ? 'Public (records already public keep their date)' : type!.storage === 'boolean' ? 'Checked' : 'Select'}
            </label>
            <label className="choice">
              <input type="radio" name="batch-on" checked={!on} onChange={() => setOn(false)} disabled={done !== null} />
              {!f ? 'Private' : type!.storage === 'boolean' ? 'Unchecked' : 'Unselect'}
            </label>
          </div>
        )}
      </div>
      {done !== null && <progress max={records.length} value={done} aria-label="Batch edit progress" />}
      <DialogActions
        secondary={{ label: 'Cancel', onClick: onClose, disabled: done !== null }}
        primary={{ label: `Apply to ${n}`, disabled: !planned || done !== null, onClick: () => void apply() }}
      />
    </Modal>
  );
}
