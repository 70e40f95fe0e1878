import type { FieldEntry, FileEntry, OdrRecord } from '../../../shared/schemas/record.js';
import { PUBLIC_DATE_FIELD } from '../../../shared/schemas/sync.js';
import { childrenOf, display, fieldStates, keyOf, same, type FieldState } from './recordFields.js';

// The three-way merge of docs/sync.md §3, with no I/O: given the server's copy, the last server
// copy (base) and ours, decide what to apply here and what is a conflict.

import type { ConflictDraft } from '../store/syncState.js';
export type { ConflictDraft };

export interface MergeInput {
  /** The server's copy, with our local uuids. */
  theirs: OdrRecord;
  base: OdrRecord | null;
  local: OdrRecord;
  /** `record|field` keys with local changes not yet on the server. */
  pending: Set<string>;
  /** Option fields that hold at most one option. */
  single: (fieldUuid: string) => boolean;
  /**
   * `record|field` keys a push has just written. With a newer edit made here while the write was
   * on its way, that edit waits in the outbox (neither applied nor a conflict). Without one, the
   * value sent is the field's base: a server value other than it (another client wrote after us,
   * or the server stored it differently) is applied here.
   */
  written?: ReadonlySet<string>;
  /**
   * Per `record|field` of a multi-option or tag field: options whose push found a conflict
   * (docs/sync.md §5). Each stays as it is here until the user chooses; the field's other
   * options merge as usual.
   */
  held?: ReadonlyMap<string, ReadonlySet<string>>;
}

export interface MergeResult {
  /** Field states to store here (the server's, or a merged option/tag set). */
  apply: Map<string, FieldState>;
  conflicts: ConflictDraft[];
}

const itemsOf = (key: string) => (key.includes(':') && key.slice(key.indexOf(':') + 1) ? key.slice(key.indexOf(':') + 1).split(',') : []);
const isSet = (key: string) => key.startsWith('opts:') || key.startsWith('tags:');

/**
 * Selections as set operations: what each side added to or removed from the base is applied to
 * it. Both sides only ever add what the base lacks and remove what it has, so they cannot undo
 * each other; the only clash is a one-option field ending with two.
 */
export function mergeSets(base: readonly string[], mine: readonly string[], theirs: readonly string[]): string[] {
  const b = new Set(base);
  const m = new Set(mine);
  const t = new Set(theirs);
  const out = new Set(base);
  for (const x of b) if (!m.has(x) || !t.has(x)) out.delete(x);
  for (const x of m) if (!b.has(x)) out.add(x);
  for (const x of t) if (!b.has(x)) out.add(x);
  return [...out].sort();
}

function conflictOf(k: string, b: FieldState | undefined, l: FieldState | undefined, t: FieldState): ConflictDraft {
  return { record: t.record, field: t.field, name: t.name, base: display(b), mine: display(l), theirs: display(t) };
}

/** A field state holding a merged option or tag set, its entries taken from either side. */
function mergedState(t: FieldState, l: FieldState | undefined, items: string[]): FieldState {
  const entry: FieldEntry = { ...t.entry };
  if (t.entry.tags || l?.entry.tags) {
    const all = [...(t.entry.tags ?? []), ...(l?.entry.tags ?? [])];
    entry.tags = items.map((u) => all.find((x) => x.template_tag_uuid === u)!);
    delete entry.values;
  } else {
    const all = [...(t.entry.values ?? []), ...(l?.entry.values ?? [])];
    entry.values = items.map((u) => all.find((x) => x.template_radio_option_uuid === u)!);
  }
  return { ...t, key: `${t.key.slice(0, t.key.indexOf(':'))}:${items.join(',')}`, entry };
}

/**
 * Field by field: the server's changes to fields we did not touch are applied, equal changes
 * cancel, option and tag sets changed on both sides merge as set operations, and anything else
 * changed on both sides is a conflict that blocks nothing else.
 */
export function mergeRecord(i: MergeInput): MergeResult {
  const T = fieldStates(i.theirs);
  const B = i.base ? fieldStates(i.base) : new Map<string, FieldState>();
  const L = fieldStates(i.local);
  const apply = new Map<string, FieldState>();
  const conflicts: ConflictDraft[] = [];
  const localRecords = new Set([i.local.record_uuid, ...childrenOf(i.local).map((c) => c.record_uuid)]);
  for (const [k, t] of T) {
    if (!localRecords.has(t.record)) continue; // a child new on the server: newChildren brings it
    const written = i.written?.has(k) === true;
    if (written && i.pending.has(k)) continue;
    const l = keyOf(L, k);
    // Written and nothing newer here: what is here is what was sent, so it is the base.
    const b = written ? l : keyOf(B, k);
    if (same(t.key, b) || same(t.key, l)) continue;
    const changedHere = !written && (i.pending.has(k) || (B.size > 0 && !same(l, b)));
    if (!changedHere) {
      apply.set(k, t);
    } else if (isSet(t.key)) {
      // Without a base the server's copy stands in for it: only our unsent changes are ours.
      let merged = mergeSets(itemsOf(i.base ? b : t.key), itemsOf(l), itemsOf(t.key));
      const held = i.single(t.field) ? undefined : i.held?.get(k);
      if (held) {
        const here = new Set(itemsOf(l));
        merged = [...new Set([...merged.filter((x) => !held.has(x)), ...[...held].filter((x) => here.has(x))])].sort();
      }
      if (i.single(t.field) && merged.length > 1) conflicts.push(conflictOf(k, B.get(k), L.get(k), t));
      else if (merged.join(',') !== itemsOf(l).sort().join(',')) apply.set(k, mergedState(t, L.get(k), merged));
    } else {
      conflicts.push(conflictOf(k, B.get(k), L.get(k), t));
    }
  }
  return { apply, conflicts };
}

/** Each record of a tree (the top and its children, any depth) with its public date. */
const publicDates = (r: OdrRecord, out = new Map<string, string>()): Map<string, string> => {
  out.set(r.record_uuid, r._record_metadata._public_date ?? '');
  for (const c of r.records ?? []) publicDates(c, out);
  return out;
};

/**
 * Public dates on the merge path, record by record as for a field: the server's date, changed
 * since the base, is applied here unless the date changed here too (a conflict) or an operation
 * on it waits here (`pending` holds `record|`: the push's own check, publicConflict, decides; a
 * refused one stays). A date just written by a push (`written`) is its base, as for a value.
 */
export function mergePublicDates(i: MergeInput): { apply: Map<string, string>; conflicts: ConflictDraft[] } {
  const T = publicDates(i.theirs);
  const B = i.base ? publicDates(i.base) : new Map<string, string>();
  const L = publicDates(i.local);
  const apply = new Map<string, string>();
  const conflicts: ConflictDraft[] = [];
  for (const [record, t] of T) {
    const l = L.get(record);
    const k = `${record}|`;
    if (l === undefined || t === '' || t === l || i.pending.has(k)) continue;
    const b = i.written?.has(k) ? l : B.get(record);
    if (t === b) continue;
    if (b !== undefined && l !== b)
      conflicts.push({ record, field: PUBLIC_DATE_FIELD, name: PUBLIC_DATE_NAME, base: b, mine: l, theirs: t });
    else apply.set(record, t);
  }
  return { apply, conflicts };
}

/**
 * Children the server has and this tree lacks, outermost only (each with its own children), with
 * the local parent to put them under. One whose record has an operation waiting here (a delete
 * not yet sent or refused: `pending` holds `record|`) is left out: it is gone here on purpose.
 */
export function newChildren(theirs: OdrRecord, local: OdrRecord, pending: ReadonlySet<string>): { parent: string; child: OdrRecord }[] {
  const here = new Set([local.record_uuid, ...childrenOf(local).map((c) => c.record_uuid)]);
  const out: { parent: string; child: OdrRecord }[] = [];
  const walk = (r: OdrRecord) => {
    for (const c of r.records ?? []) {
      if (here.has(c.record_uuid)) walk(c);
      else if (!pending.has(`${c.record_uuid}|`)) out.push({ parent: r.record_uuid, child: c });
    }
  };
  walk(theirs);
  return out;
}

export interface PushCheck {
  /** The local record and field the operation writes. */
  record: string;
  field: string;
  /**
   * A multi-option or tag operation: the option it turns on or off. Such a field is checked
   * option by option (a set operation, as the merge treats it): another option changed on the
   * server is no conflict, only this one changed there to other than ours is.
   */
  item?: string;
  /** The server's copy now, and the field's key in it (server uuids). */
  fresh: OdrRecord;
  remoteKey: string;
  base: OdrRecord | null;
  local: OdrRecord | null;
  /** A "keep mine" lease: the server value the choice was made against. */
  over?: string;
}

/**
 * Before a value, option or tag is written: a field (for a multi-option or tag field, the one
 * option) the server changed since our base, to something other than ours, is a conflict —
 * unless the user chose to keep theirs over exactly that server value.
 */
export function pushConflict(c: PushCheck): ConflictDraft | null {
  const F = fieldStates(c.fresh);
  const t = F.get(c.remoteKey);
  if (c.over !== undefined && display(t) === c.over) return null;
  if (!c.base) return null;
  const B = fieldStates(c.base);
  const L = c.local ? fieldStates(c.local) : new Map<string, FieldState>();
  const localKey = `${c.record}|${c.field}`;
  const tk = keyOf(F, c.remoteKey);
  const bk = keyOf(B, c.remoteKey);
  const lk = keyOf(L, localKey);
  if (c.item !== undefined) {
    const item = c.item;
    const on = (k: string) => itemsOf(k).includes(item);
    if (on(tk) === on(bk) || on(tk) === on(lk)) return null;
  } else if (same(tk, bk) || same(lk, tk)) return null;
  return {
    record: c.record,
    field: c.field,
    name: t?.name ?? c.field,
    base: display(B.get(c.remoteKey)),
    mine: display(L.get(localKey)),
    theirs: display(t),
  };
}

/** Whether the option (or tag) is selected in a field state here: a stale operation is not sent. */
export const selectedHere = (local: OdrRecord | null, record: string, field: string, item: string): boolean =>
  itemsOf(keyOf(local ? fieldStates(local) : new Map<string, FieldState>(), `${record}|${field}`)).includes(item);

/** How a record's public date is shown in a conflict; kept raw, so "keep theirs" can apply it. */
export const PUBLIC_DATE_NAME = 'Public date';

export interface PublicCheck {
  /** The local record, and its copies: the server's now, the base, ours (absent: not there). */
  record: string;
  fresh: OdrRecord | undefined;
  base: OdrRecord | undefined;
  local: OdrRecord | undefined;
  over?: string;
}

/**
 * Before a record's public date is written: a date the server changed since our base, to other
 * than ours, is a conflict, as for a value (the same lease for "keep mine").
 */
export function publicConflict(c: PublicCheck): ConflictDraft | null {
  const t = c.fresh?._record_metadata._public_date ?? '';
  if (c.over !== undefined && t === c.over) return null;
  if (!c.base || !c.fresh) return null;
  const b = c.base._record_metadata._public_date ?? '';
  const l = c.local?._record_metadata._public_date ?? '';
  if (t === b || t === l) return null;
  return { record: c.record, field: PUBLIC_DATE_FIELD, name: PUBLIC_DATE_NAME, base: b, mine: l, theirs: t };
}

/** Records whose server copy did not change since the base; `theirsJson`: the server copy serialized. */
export const unchangedSinceBase = (baseJson: string | undefined, theirsJson: string) => baseJson !== undefined && baseJson === theirsJson;

/** What a file's row holds from its entry (not its dates of creation, nor local-only state). */
const fileSignature = (field: string, f: FileEntry): string => {
  const m = f._file_metadata ?? {};
  return JSON.stringify([
    field,
    f.original_name,
    f.file_size ?? '',
    f.width ?? '',
    f.height ?? '',
    f.caption ?? '',
    f.href,
    f.parent_image_id !== undefined,
    m._external_id ?? '',
    m._public_date ?? '',
    m._display_order ?? '',
    m._quality ?? '',
  ]);
};

/**
 * Whether a server copy holds what the local record already does: the same records in the same
 * places, public dates, file rows, and every mergeable field equal. Dates of the last change are
 * not compared: they are each side's own clock. Anything else differing (a file uploaded here
 * under its own uuid, a value written differently) makes it "not the same": the caller then
 * writes the server's copy, which is always right, only slower.
 */
export function sameContent(local: OdrRecord, theirs: OdrRecord): boolean {
  const shape = (r: OdrRecord, parent: string, out: Map<string, string>): Map<string, string> => {
    out.set(r.record_uuid, `${parent}|${r.database_uuid}|${r._record_metadata._public_date}`);
    for (const e of r.fields)
      for (const f of e.files ?? []) out.set(`file:${f.file_uuid}`, `${r.record_uuid}|${fileSignature(e.field_uuid, f)}`);
    for (const c of r.records ?? []) shape(c, r.record_uuid, out);
    return out;
  };
  const a = shape(local, '', new Map());
  const b = shape(theirs, '', new Map());
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  const L = fieldStates(local);
  const T = fieldStates(theirs);
  for (const k of new Set([...L.keys(), ...T.keys()])) if (!same(keyOf(L, k), keyOf(T, k))) return false;
  return true;
}
