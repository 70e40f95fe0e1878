import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { FieldEntry, OdrRecord } from '../../../shared/schemas/record';
import { OdrApiError } from '../../../shared/client/odrClient';
import { ChangedSinceBody } from '../../../shared/schemas/common';
import { api, errorText } from './api';
import { keys } from './queries';
import { findRecord } from '../../../shared/recordTree';
import { patchOption, patchScalar } from './recordPatch';
import { createStore, useStore } from './store';
import { dismiss, isShown, toast } from '../ui/toasts';
import { inOrder } from './inOrder';

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
      /** The field's whole selection before the edit: what redo expects, and the base of `selectionAfter`. */
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
/**
 * An operation on many records, undone and redone as one step: a batch edit (each record's
 * earlier state put back) or a delete (the records restored from the service's record trash).
 */
export interface Operation {
  kind: 'batch' | 'delete';
  label: string;
  /** Settles with a note when part of it could not be undone (which records, why); the rest is. */
  undo: () => Promise<string | void>;
  redo: () => Promise<void>;
  /**
   * Records put back another way (the Trash panel): the step forgets them and answers true when
   * nothing is left for its undo to do.
   */
  restoredElsewhere?: (uuids: string[]) => boolean;
}

/**
 * An undo or redo that cannot happen, said in the user's words (no uuid, no rights paragraph).
 * `drop`: it never can (its target is gone for good), so the step leaves the lists and the next
 * Ctrl+Z reaches the step before it; otherwise the step stays to be tried again.
 */
export class UndoRefused extends Error {
  constructor(
    message: string,
    readonly drop: boolean,
  ) {
    super(message);
  }
}

/**
 * Why a step's request was refused, plainly: the service's own text names uuids and every rule of
 * its rights check, which says nothing to someone who only pressed Ctrl+Z.
 */
export function refusal(e: unknown): UndoRefused {
  if (e instanceof UndoRefused) return e;
  if (e instanceof OdrApiError && e.status === 409) {
    // The field no longer holds what the step left there (the service checked it in the write).
    const changed = ChangedSinceBody.safeParse(e.body);
    if (changed.success) {
      const holds = changed.data.error.holds;
      if (Array.isArray(holds))
        return new UndoRefused('its selection was changed since (a sync, a script or another window); it is left as it is', true);
      return new UndoRefused(
        `it was changed since (a sync, a script or another window) and holds ${holds === null ? 'nothing (empty)' : JSON.stringify(holds)} now; it is left as it is`,
        true,
      );
    }
  }
  if (e instanceof OdrApiError) {
    if (e.status === 404)
      return new UndoRefused('what it changed is no longer there (deleted since, here, in another window or by a sync)', true);
    if (e.status === 403 || e.status === 401)
      return new UndoRefused('you may no longer change it (your role on the dataset changed)', true);
    if (e.status === 409) return new UndoRefused('what it changed has changed since (its dataset or parent record was deleted?)', false);
  }
  return new UndoRefused(errorText(e), false);
}
type Step = Edit | Operation;
/**
 * The last 100 operations, single edits, batches and deletes alike: Ctrl/Cmd+Z takes them back
 * in order, Ctrl/Cmd+Shift+Z (or Ctrl+Y) does them again. A new operation clears what could be
 * redone, as in every editor.
 */
const UNDO_DEPTH = 100;
const history = createStore<{ undo: Step[]; redo: Step[] }>({ undo: [], redo: [] });
const capped = (l: Step[]) => (l.length > UNDO_DEPTH ? l.slice(l.length - UNDO_DEPTH) : l);

function pushDone(step: Step) {
  history.set((h) => ({ undo: capped([...h.undo, step]), redo: [] }));
}

/**
 * A step is on the undo list from the key that made it, not from its answer: Ctrl+Z pressed
 * before the answer came must take that step back, not find nothing (or the step before it) to
 * undo. So an undo or redo may be asked for while the step is still on its way.
 * An edit's undo or redo takes its place behind the field's requests at once (`inOrder`, like any
 * edit), so the service sees them in the order they were made; an operation's waits for the
 * operation (an undo arriving first would find nothing in the trash yet).
 * `stepWork`: the step's last run (its edit, undo or redo) while on its way, true once done; when
 * it failed, the undo or redo waiting for it is not sent (the step went back or off the lists).
 */
const stepWork = new WeakMap<Step, Promise<boolean>>();

function trackStep(step: Step, work: Promise<boolean>) {
  stepWork.set(step, work);
  void work.then(() => {
    if (stepWork.get(step) === work) stepWork.delete(step);
  });
}

export function pushOperation(op: Operation) {
  pushDone(op);
}

/**
 * An operation on the undo list from its start (see stepWork): `run` settles true when any of it
 * was done, false (or failing) when nothing was, and then the step leaves the lists.
 */
export function pushRunning(op: Operation, run: Promise<boolean>) {
  pushDone(op);
  const left = () => {
    dropStep(op);
    return false;
  };
  trackStep(
    op,
    run.then((done) => done || left(), left),
  );
}

/** Takes a step off both lists: it cannot be undone or done again. */
function dropStep(step: Step) {
  history.set((h) => ({ undo: h.undo.filter((s) => s !== step), redo: h.redo.filter((s) => s !== step) }));
}

/**
 * Records restored from the Trash panel: the delete steps that held them forget them, and a step
 * left with nothing to put back leaves the undo list (its Ctrl+Z would only be refused).
 */
export function restoredElsewhere(uuids: string[]) {
  for (const step of history.get().undo) if (step.kind === 'delete' && step.restoredElsewhere?.(uuids)) dropStep(step);
}

/**
 * Shows `text` with an Undo button for `op`; the notice goes as soon as the step is no longer on
 * the undo list (undone by Ctrl+Z or the toolbar, or dropped), so its Undo never answers
 * "Nothing to undo".
 */
export function offerUndo(op: Operation, text: string, ms: number, undo: (op: Operation) => void) {
  const id = toast({ kind: 'info', text, action: { label: 'Undo', run: () => undo(op) } }, ms);
  const stop = history.subscribe(() => {
    if (!isShown(id)) stop();
    else if (!history.get().undo.includes(op)) {
      stop();
      dismiss(id);
    }
  });
}

const stepLabel = (s: Step) => (s.kind === 'value' || s.kind === 'option' ? `the change to ${s.field.name}` : s.label);
/** What Ctrl+Z and Ctrl+Shift+Z would take back or do again (labels for the Undo/Redo buttons). */
export const useUndoLabels = () =>
  useStore(history, (h) => {
    const u = h.undo.at(-1);
    const r = h.redo.at(-1);
    return `${u ? stepLabel(u) : ''}\u0000${r ? stepLabel(r) : ''}`;
  });

const statusKey = (record: string, field: string) => `${record}:${field}`;
export const useSaveState = (record: string, field: string) => useStore(status, (s) => s[statusKey(record, field)]);

function setStatus(e: Edit, s: SaveState) {
  status.set((m) => ({ ...m, [statusKey(e.record, e.field.uuid)]: s }));
}

function clearStatus(e: Edit) {
  status.set((m) => {
    const { [statusKey(e.record, e.field.uuid)]: _gone, ...rest } = m;
    return rest;
  });
}

export const draftOf = (record: string, field: string): string | undefined => drafts.get()[statusKey(record, field)]?.value;
/** Whether the field has typed text not saved: a field shows its saved value again when this turns false. */
export const useHasDraft = (record: string, field: string) => useStore(drafts, (m) => statusKey(record, field) in m);

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

/**
 * What a field shows while edits of it are in flight: its optimistic entry, set in the click's own
 * event. The query cache takes the same copy at once but tells its components a timer later
 * (TanStack's notifyManager), and React puts a controlled input back to its props at the end of
 * the event, so a radio or checkbox read from the cache unchecks itself for a moment and a quick
 * reader (a user, Playwright's check()) sees the click undone. A store read through
 * useSyncExternalStore re-renders before React puts anything back. The entry goes when the field's
 * last edit settles: by then the cache holds the service's answer, or the earlier value after an
 * error (whose badge and notice say so).
 */
const shown = createStore<Record<string, { n: number; entry?: FieldEntry }>>({});
export const useShownEntry = (record: string, field: string) => useStore(shown, (s) => s[statusKey(record, field)]?.entry);

function showPending(e: Edit, patched: OdrRecord | undefined) {
  const k = statusKey(e.record, e.field.uuid);
  const entry = patched && findRecord(patched, e.record)?.fields.find((f) => f.field_uuid === e.field.uuid);
  shown.set((m) => ({ ...m, [k]: { n: (m[k]?.n ?? 0) + 1, entry: entry ?? m[k]?.entry } }));
}

/** Whether a later request of `e`'s field waits behind it: its badge stays "Saving…" until that one is answered. */
function othersWaiting(e: Edit): boolean {
  return (shown.get()[statusKey(e.record, e.field.uuid)]?.n ?? 0) > 1;
}

function settlePending(e: Edit) {
  const k = statusKey(e.record, e.field.uuid);
  shown.set((m) => {
    const now = m[k];
    if (!now) return m;
    if (now.n > 1) return { ...m, [k]: { ...now, n: now.n - 1 } };
    const { [k]: _gone, ...rest } = m;
    return rest;
  });
}

/** What the field must hold for an undo or redo to apply: a value, or the whole selection (uuids). */
type Expected = string | number | null | string[];

async function send(e: Edit, expected?: Expected): Promise<void> {
  if (e.kind === 'value') await api.setValue(e.record, e.field.uuid, e.after ?? '', expected as string | number | null | undefined);
  else await api.setOption(e.record, e.field.uuid, e.option.uuid, e.on, expected as string[] | undefined);
}

/** The field's whole selection once an option edit is made. */
function selectionAfter(e: Extract<Edit, { kind: 'option' }>): string[] {
  const rest = e.before.map((o) => o.uuid).filter((u) => u !== e.option.uuid);
  return e.on ? (e.single ? [e.option.uuid] : [...rest, e.option.uuid]) : rest;
}

/**
 * What the field holds when `step` was just done (undo) or just undone (redo): the step applies
 * only if it still does, so a value changed since is never silently overwritten.
 */
function expectedFor(step: Edit, dir: 'undo' | 'redo'): Expected {
  if (step.kind === 'value') return dir === 'undo' ? step.after : step.before;
  return dir === 'undo' ? selectionAfter(step) : step.before.map((o) => o.uuid);
}

/** The edit that takes `e` back. Options restore the exact earlier selection. */
function inverse(e: Edit): Edit[] {
  if (e.kind === 'value') return [{ ...e, before: e.after, after: e.before }];
  if (!e.single || !e.on) return [{ ...e, on: !e.on, before: [] }];
  const prev = e.before[0];
  return prev ? [{ ...e, option: prev, on: true, before: [e.option] }] : [{ ...e, on: false, before: [] }];
}

/**
 * Edits started and not yet settled, by top record, counted from the click itself: the mutation cache counts
 * one as pending only a tick later, and a record refresh started in that gap would overwrite it.
 */
const inFlightTops = new Map<string, number>();
/** Whether an edit of `top` (or of a child of it) is on its way: its cache is the edit's until it settles. */
export const editInFlight = (top: string) => (inFlightTops.get(top) ?? 0) > 0;
function countTop(top: string, by: 1 | -1) {
  const n = (inFlightTops.get(top) ?? 0) + by;
  if (n > 0) inFlightTops.set(top, n);
  else inFlightTops.delete(top);
}

let batches = 0;
/** A batch edit (or its undo) is sending chunks: change events wait, the batch refreshes once at its end. */
export const batchRunning = () => batches > 0;
/**
 * Runs a multi-request batch with change events held: refetching the list, the dataset summaries
 * and the sync state after each chunk would only compete with the next chunk for the service.
 */
export async function holdingEvents<T>(run: () => Promise<T>): Promise<T> {
  batches++;
  try {
    return await run();
  } finally {
    batches--;
  }
}

/** A new edit, or one taken back (undo) or done again (redo): only new ones go on the undo list. */
type Mode = 'do' | 'undo' | 'redo';

/** Where a failed undo or redo puts its step: back where it was, or off both lists when it never can succeed. */
function settleFailed(step: Step, dir: 'undo' | 'redo', drop: boolean) {
  if (drop) return dropStep(step);
  history.set((x) =>
    dir === 'undo'
      ? { undo: capped([...x.undo.filter((s) => s !== step), step]), redo: x.redo.filter((s) => s !== step) }
      : { undo: x.undo.filter((s) => s !== step), redo: capped([...x.redo.filter((s) => s !== step), step]) },
  );
}

function refusedToast(dir: 'undo' | 'redo', step: Step, r: UndoRefused) {
  toast({ kind: 'error', text: `Cannot ${dir} ${stepLabel(step)}: ${r.message}.${r.drop ? ' It is off the undo list.' : ''}` });
}

function useApply(qc: QueryClient) {
  return useMutation({
    mutationKey: ['edit'],
    mutationFn: async ({ edit, mode, step }: { edit: Edit; mode: Mode; prev: OdrRecord | undefined; step?: Edit }) =>
      send(edit, mode !== 'do' && step ? expectedFor(step, mode) : undefined),
    onMutate: async ({ edit, prev }) => {
      // Sent now: "Saving…" again even if an earlier request of the field failed while this one waited.
      setStatus(edit, { state: 'saving', at: performance.now() });
      await qc.cancelQueries({ queryKey: keys.record(edit.top) }, { revert: false });
      // A read that landed before the cancel may have replaced the optimistic copy: patch again.
      const now = qc.getQueryData<OdrRecord>(keys.record(edit.top));
      if (now) qc.setQueryData(keys.record(edit.top), optimistic(now, edit));
      return { prev };
    },
    onError: (err, { edit, mode, step }, ctx) => {
      if (ctx?.prev) qc.setQueryData(keys.record(edit.top), ctx.prev);
      if (mode !== 'do' && step) {
        // An undo or redo whose record went away or changed under it: said plainly, once.
        const r = refusal(err);
        // Changed since: the field shows its newer value, saved; nothing of it waits to be saved.
        if (r.drop && err instanceof OdrApiError && err.status === 409) clearStatus(edit);
        else setStatus(edit, { state: 'error', at: performance.now(), message: r.message });
        settleFailed(step, mode, r.drop);
        refusedToast(mode, step, r);
        return;
      }
      // Never done: nothing to undo (an undo already waiting for it is not sent).
      dropStep(edit);
      const message = errorText(err);
      setStatus(edit, { state: 'error', at: performance.now(), message });
      toast({ kind: 'error', text: `Not saved — ${edit.field.name}: ${message}. The previous value is back.` });
    },
    onSuccess: (_r, { edit, mode, step }) => {
      if (!othersWaiting(edit)) setStatus(edit, { state: 'saved', at: performance.now() });
      if (mode !== 'do' && step) toast({ kind: 'info', text: `${mode === 'undo' ? 'Undid' : 'Redid'} ${stepLabel(step)}` }, 3000);
    },
    onSettled: (_r, _e, { edit }) => {
      countTop(edit.top, -1);
      settlePending(edit);
      // Its record's last edit settled: the service's copy takes over (and brings what a resync or
      // change event skipped while the edit owned the cache).
      if (!editInFlight(edit.top)) void qc.invalidateQueries({ queryKey: keys.record(edit.top) });
      void qc.invalidateQueries({ queryKey: keys.history(edit.top) });
    },
  });
}

export function useEdits() {
  const qc = useQueryClient();
  const m = useApply(qc);
  // The optimistic copy goes into the cache and the field's shown entry in the same event as the
  // click or key: the mutation starts a tick later, and a controlled checkbox would flip back until then.
  const run = useCallback(
    (edit: Edit, mode: Mode, step?: Edit, after?: Promise<boolean>): Promise<boolean> => {
      countTop(edit.top, 1);
      // A read already on its way (an earlier edit's refresh) would land on top of this edit: drop it.
      void qc.cancelQueries({ queryKey: keys.record(edit.top) }, { revert: false });
      const prev = qc.getQueryData<OdrRecord>(keys.record(edit.top));
      const patched = prev && optimistic(prev, edit);
      if (patched) qc.setQueryData(keys.record(edit.top), patched);
      showPending(edit, patched);
      // Pending from the key on, also while it waits behind the field's earlier requests.
      setStatus(edit, { state: 'saving', at: performance.now() });
      // Each waits for the field's request before it, so the service holds the newest; settled
      // with the mutation's own callbacks (onError says what failed and how).
      return inOrder(statusKey(edit.record, edit.field.uuid), async () => {
        // An undo or redo of a step whose own run (ahead of it on this field) failed: the step has
        // left the lists and its badge says why; this one is not sent. The failed run put its
        // earlier copy back; the service's copy takes over once nothing of the record is on its way.
        if (after && !(await after)) {
          // "Saving…" left by this key alone: the requests before it that were answered well
          // left "Saved" to the last one (an error says so itself).
          if (!othersWaiting(edit) && status.get()[statusKey(edit.record, edit.field.uuid)]?.state === 'saving')
            setStatus(edit, { state: 'saved', at: performance.now() });
          countTop(edit.top, -1);
          settlePending(edit);
          if (!editInFlight(edit.top)) void qc.invalidateQueries({ queryKey: keys.record(edit.top) });
          return false;
        }
        await m.mutateAsync({ edit, mode, prev, step });
        return true;
      }).catch(() => false);
    },
    [m, qc],
  );
  const apply = useCallback(
    (edit: Edit) => {
      pushDone(edit);
      trackStep(edit, run(edit, 'do'));
    },
    [run],
  );
  const refreshAll = useCallback(() => {
    void qc.invalidateQueries({ queryKey: ['table'] });
    void qc.invalidateQueries({ queryKey: ['record'] });
    void qc.invalidateQueries({ queryKey: ['history'] });
    void qc.invalidateQueries({ queryKey: keys.datasets });
    void qc.invalidateQueries({ queryKey: keys.sync });
    // An open Trash panel: a delete undone or done again changes what it lists.
    void qc.invalidateQueries({ queryKey: keys.recordTrash });
  }, [qc]);

  /** Moves the newest step of one list to the other and runs it backwards (undo) or forwards (redo). */
  const travel = useCallback(
    (dir: 'undo' | 'redo', only?: Operation) => {
      const h = history.get();
      const from = dir === 'undo' ? h.undo : h.redo;
      const step = only ?? from.at(-1);
      if (!step || !from.includes(step)) {
        toast({ kind: 'info', text: dir === 'undo' ? 'Nothing to undo' : 'Nothing to redo' }, 2000);
        return;
      }
      const rest = from.filter((s) => s !== step);
      history.set((x) =>
        dir === 'undo' ? { undo: rest, redo: capped([...x.redo, step]) } : { undo: capped([...x.undo, step]), redo: rest },
      );
      const verb = dir === 'undo' ? 'Undid' : 'Redid';
      if (step.kind === 'value' || step.kind === 'option') {
        // Queued behind the field's requests at once, its optimistic copy shown at once, as any
        // edit; sent only if the step's own run (ahead of it in that queue) was done.
        const own = stepWork.get(step);
        const edits = dir === 'undo' ? inverse(step) : [step];
        trackStep(
          step,
          Promise.all(edits.map((e) => run(e, dir, step, own))).then((ok) => ok.every(Boolean)),
        );
        return;
      }
      const go = () =>
        (dir === 'undo' ? step.undo() : step.redo()).then(
          (note) => {
            // Done, but not everywhere: said as an alert, naming what was left and why.
            if (note) toast({ kind: 'error', text: `${verb}: ${step.label}, except: ${note}.` });
            else toast({ kind: 'info', text: `${verb}: ${step.label}` }, 3000);
            refreshAll();
            return true;
          },
          (e: unknown) => {
            // It did not happen: the step goes back where it was, or off the lists when it never can.
            const r = refusal(e);
            settleFailed(step, dir, r.drop);
            refusedToast(dir, step, r);
            refreshAll();
            return false;
          },
        );
      const own = stepWork.get(step);
      trackStep(step, own ? own.then((done) => done && go()) : go());
    },
    [run, refreshAll],
  );
  const undo = useCallback((only?: Operation) => travel('undo', only), [travel]);
  const redo = useCallback(() => travel('redo'), [travel]);
  return { apply, undo, redo };
}
