import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { OdrRecord } from '../../../shared/schemas/record';
import { api, errorText } from './api';
import { keys } from './queries';
import { patchOption, patchScalar } from './recordPatch';
import { createStore, useStore } from './store';
import { toast } from '../ui/toasts';

/** One change the user made, with what it replaced: enough to save it and to undo it. */
export type Edit =
  | {
      kind: 'value';
      top: string;
      record: string;
      field: { uuid: string; name: string };
      boolean: boolean;
      before: string | number | null;
      after: string | number | null;
    }
  | {
      kind: 'option';
      top: string;
      record: string;
      field: { uuid: string; name: string };
      option: { uuid: string; name: string };
      on: boolean;
      single: boolean;
      tags: boolean;
      before: { uuid: string; name: string }[];
    };

/** `draft`: typed, not sent yet; `error`: refused (by validation or by the service), not saved. */
export type SaveState = { state: 'saving' | 'saved' | 'error' | 'draft'; at: number; message?: string };

const status = createStore<Record<string, SaveState>>({});
/** Typed text not saved yet, by record:field; it outlives the editor so leaving a record loses nothing. */
export interface Draft {
  top: string;
  value: string;
}
const drafts = createStore<Record<string, Draft>>({});
/** A batch edit, undone as one step by putting back each record's earlier state. */
export interface BatchUndo {
  kind: 'batch';
  label: string;
  undo: () => Promise<void>;
}
/** The last 100 operations, single edits and batches alike (Ctrl/Cmd+Z takes them back in order). */
const undoStack: (Edit | BatchUndo)[] = [];
const UNDO_DEPTH = 100;

export function pushUndo(u: BatchUndo) {
  undoStack.push(u);
  if (undoStack.length > UNDO_DEPTH) undoStack.shift();
}

const statusKey = (record: string, field: string) => `${record}:${field}`;
export const useSaveState = (record: string, field: string) => useStore(status, (s) => s[statusKey(record, field)]);

function setStatus(e: Edit, s: SaveState) {
  status.set((m) => ({ ...m, [statusKey(e.record, e.field.uuid)]: s }));
}

export const draftOf = (record: string, field: string): string | undefined => drafts.get()[statusKey(record, field)]?.value;

/**
 * Keeps (or, with `value` undefined, drops) the typed text of a field and says so in its badge:
 * "Not saved" with the reason while it is invalid.
 */
export function keepDraft(top: string, record: string, field: string, value: string | undefined, invalid: string | null) {
  const k = statusKey(record, field);
  drafts.set((m) => {
    if (value === undefined) {
      if (!(k in m)) return m;
      const { [k]: _gone, ...rest } = m;
      return rest;
    }
    return { ...m, [k]: { top, value } };
  });
  status.set((m) => {
    if (value === undefined) {
      if (m[k]?.state !== 'draft' && m[k]?.state !== 'error') return m;
      const { [k]: _gone, ...rest } = m;
      return rest;
    }
    return { ...m, [k]: invalid ? { state: 'error', at: performance.now(), message: invalid } : { state: 'draft', at: performance.now() } };
  });
}

/** Fields of a record (and its children) left with unsaved typed text. */
export const draftsUnder = (top: string): number => Object.values(drafts.get()).filter((d) => d.top === top).length;

function optimistic(rec: OdrRecord, e: Edit): OdrRecord {
  return e.kind === 'value'
    ? patchScalar(rec, e.record, e.field, e.boolean, e.after)
    : patchOption(rec, e.record, e.field, e.option, e.on, e.single, e.tags);
}

async function send(e: Edit): Promise<void> {
  if (e.kind === 'value') await api.setValue(e.record, e.field.uuid, e.after ?? '');
  else await api.setOption(e.record, e.field.uuid, e.option.uuid, e.on);
}

/** The edit that takes `e` back. Options restore the exact earlier selection. */
function inverse(e: Edit): Edit[] {
  if (e.kind === 'value') return [{ ...e, before: e.after, after: e.before }];
  if (!e.single || !e.on) return [{ ...e, on: !e.on, before: [] }];
  const prev = e.before[0];
  return prev ? [{ ...e, option: prev, on: true, before: [e.option] }] : [{ ...e, on: false, before: [] }];
}

/**
 * Edits started and not yet settled, counted from the click itself: the mutation cache counts
 * one as pending only a tick later, and a record refresh started in that gap would overwrite it.
 */
let inFlight = 0;
export const editsInFlight = () => inFlight;

function useApply(qc: QueryClient) {
  return useMutation({
    mutationKey: ['edit'],
    mutationFn: async ({ edit }: { edit: Edit; undoing: boolean; prev: OdrRecord | undefined }) => send(edit),
    onMutate: async ({ edit, prev }) => {
      setStatus(edit, { state: 'saving', at: performance.now() });
      await qc.cancelQueries({ queryKey: keys.record(edit.top) }, { revert: false });
      // A read that landed before the cancel may have replaced the optimistic copy: patch again.
      const now = qc.getQueryData<OdrRecord>(keys.record(edit.top));
      if (now) qc.setQueryData(keys.record(edit.top), optimistic(now, edit));
      return { prev };
    },
    onError: (err, { edit }, ctx) => {
      if (ctx?.prev) qc.setQueryData(keys.record(edit.top), ctx.prev);
      const message = errorText(err);
      setStatus(edit, { state: 'error', at: performance.now(), message });
      toast({ kind: 'error', text: `Not saved — ${edit.field.name}: ${message}. The previous value is back.` });
    },
    onSuccess: (_r, { edit, undoing }) => {
      setStatus(edit, { state: 'saved', at: performance.now() });
      if (!undoing) {
        undoStack.push(edit);
        if (undoStack.length > UNDO_DEPTH) undoStack.shift();
      }
    },
    onSettled: (_r, _e, { edit }) => {
      inFlight--;
      if (inFlight === 0) void qc.invalidateQueries({ queryKey: keys.record(edit.top) });
    },
  });
}

export function useEdits() {
  const qc = useQueryClient();
  const m = useApply(qc);
  // The optimistic copy goes into the cache in the same event as the click or key: the mutation
  // starts a tick later, and a controlled checkbox would flip back until then.
  const run = useCallback(
    (edit: Edit, undoing: boolean) => {
      inFlight++;
      // A read already on its way (an earlier edit's refresh) would land on top of this edit: drop it.
      void qc.cancelQueries({ queryKey: keys.record(edit.top) }, { revert: false });
      const prev = qc.getQueryData<OdrRecord>(keys.record(edit.top));
      if (prev) qc.setQueryData(keys.record(edit.top), optimistic(prev, edit));
      m.mutate({ edit, undoing, prev });
    },
    [m, qc],
  );
  const apply = useCallback((edit: Edit) => run(edit, false), [run]);
  const undo = useCallback(() => {
    const last = undoStack.pop();
    if (!last) {
      toast({ kind: 'info', text: 'Nothing to undo' }, 2000);
      return;
    }
    if (last.kind === 'batch') {
      last.undo().then(
        () => {
          toast({ kind: 'info', text: `Undid: ${last.label}` }, 3000);
          void qc.invalidateQueries({ queryKey: ['table'] });
          void qc.invalidateQueries({ queryKey: ['record'] });
        },
        (e: unknown) => toast({ kind: 'error', text: `Could not undo ${last.label}: ${errorText(e)}` }),
      );
      return;
    }
    for (const e of inverse(last)) run(e, true);
    toast({ kind: 'info', text: `Undid the change to ${last.field.name}` }, 3000);
  }, [run, qc]);
  return { apply, undo };
}
