import { PRIVATE_DATE } from '../../../shared/dates';
import { fieldType } from '../../../shared/fieldTypes';
import type { HistoryEntry } from '../../../shared/schemas/history';
import type { TemplateField, TemplateTag } from '../../../shared/schemas/template';
import { showLocal } from './dates';
import { fileSizeText } from './bytes';

/**
 * One step of a record's history as people think of it: the change log writes a single-option
 * change as "unselect A" + "select B", and one click on a tag as one row; entries made in the
 * same moment by the same person on the same field are one step ("A → B").
 */
export interface HistoryStep {
  key: string;
  at: string;
  who: string;
  origin: string;
  record: string;
  field: string | null;
  kind: 'value' | 'options' | 'file' | 'public' | 'create';
  old: unknown;
  new: unknown;
  /** Options or tags selected / unselected in this step (uuids). */
  added: string[];
  removed: string[];
  /** file.add / file.delete / file.meta entries of the step. */
  files: HistoryEntry[];
}

const kindOf = (op: HistoryEntry['op']): HistoryStep['kind'] =>
  op === 'value.set'
    ? 'value'
    : op.startsWith('option.') || op.startsWith('tag.')
      ? 'options'
      : op.startsWith('file.')
        ? 'file'
        : op === 'record.public'
          ? 'public'
          : 'create';

/** Entries (newest first) folded into steps (newest first). */
export function historySteps(entries: HistoryEntry[]): HistoryStep[] {
  const steps: HistoryStep[] = [];
  for (const e of entries) {
    const kind = kindOf(e.op);
    const who = e.user?.name ?? 'someone on the remote server';
    const last = steps.at(-1);
    const same =
      last &&
      last.at === e.at &&
      last.who === who &&
      last.record === e.record_uuid &&
      last.field === e.field_uuid &&
      last.kind === kind &&
      (kind === 'options' || kind === 'file');
    const step: HistoryStep = same
      ? last
      : {
          key: String(e.seq),
          at: e.at,
          who,
          origin: e.origin,
          record: e.record_uuid,
          field: e.field_uuid,
          kind,
          old: e.old,
          new: e.new,
          added: [],
          removed: [],
          files: [],
        };
    if (kind === 'options' && e.item_uuid) (e.op.endsWith('.select') ? step.added : step.removed).push(e.item_uuid);
    if (kind === 'file') step.files.push(e);
    if (!same) steps.push(step);
  }
  return steps;
}

const flatTags = (tags: TemplateTag[] = [], path = ''): [string, string][] =>
  tags.flatMap((t) => [[t.template_tag_uuid, path + t.name] as [string, string], ...flatTags(t.tags, `${path}${t.name} › `)]);

/** Option and tag names of a field by uuid (tags with their path: "Group 1 › item 2"). */
export function itemNames(field: TemplateField | undefined): Map<string, string> {
  if (!field) return new Map();
  return new Map([
    ...(field.radio_options ?? []).map((o) => [o.template_radio_option_uuid, o.name] as [string, string]),
    ...flatTags(field.tags),
  ]);
}

/** A stored value the way the field shows it. */
export function showValue(field: TemplateField | undefined, v: unknown): string {
  if (v === null || v === undefined || v === '') return '(empty)';
  if (field && fieldType(field.fieldtype).storage === 'boolean') return Number(v) ? 'checked' : 'unchecked';
  return String(v);
}

const showPublic = (v: unknown) => (typeof v !== 'string' ? '?' : v === PRIVATE_DATE ? 'private' : `public from ${showLocal(v)}`);

/** The step in words, values as the user sees them: option names, local dates, sizes in bytes. */
export function describeStep(step: HistoryStep, field: TemplateField | undefined): { before: string; after: string } | { text: string } {
  switch (step.kind) {
    case 'value':
      return { before: showValue(field, step.old), after: showValue(field, step.new) };
    case 'options': {
      const names = itemNames(field);
      const name = (u: string) => names.get(u) ?? `(an option no longer in the template)`;
      if (field && fieldType(field.fieldtype).single && step.added.length + step.removed.length > 0)
        return { before: step.removed.map(name).join(', ') || '(none)', after: step.added.map(name).join(', ') || '(none)' };
      return { text: [...step.added.map((u) => `+ ${name(u)}`), ...step.removed.map((u) => `− ${name(u)}`)].join(', ') };
    }
    case 'file':
      return {
        text: step.files
          .map((f) => {
            const v = (f.op === 'file.delete' ? f.old : f.new) as { original_name?: string; file_size?: number | string } | null;
            const size = fileSizeText(v?.file_size);
            if (f.op === 'file.add') return `added ${v?.original_name ?? 'a file'}${size ? ` (${size})` : ''}`;
            if (f.op === 'file.delete') return `deleted ${v?.original_name ?? 'a file'}`;
            return `changed ${Object.keys((f.new as object | null) ?? {}).join(', ')} of a file`;
          })
          .join('; '),
      };
    case 'public':
      return { before: showPublic(step.old), after: showPublic(step.new) };
    case 'create':
      return { text: 'created' };
  }
}
