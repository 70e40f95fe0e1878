/**
 * The list's selection as plain data and pure steps, so its rules are tested without React
 * (test/unit/selectionModel.test.ts); `useSelection.ts` holds it for the dataset screen.
 *
 * Picks work as in Zotero: a plain click replaces the selection, Ctrl/Cmd toggles one row, Shift
 * extends from the anchor. A Shift range is read from the service (its rows may not be loaded),
 * so it lands later: the row clicked shows selected at once, and what the person does while the
 * read is on its way decides what the answer may still change (see each step).
 */

/** A Shift range or Select all being read: `id` tells its answer from an older one's. */
export interface PendingRange {
  readonly id: number;
  /** The row Shift-clicked, if the click added it: it leaves again should the read fail. */
  readonly added: string | null;
  /** Rows Ctrl-toggled (true: selected) or gone meanwhile (false), applied on top of the range. */
  readonly toggled: ReadonlyMap<string, boolean>;
  /** A Select all's read (not a Shift range's). */
  readonly all?: boolean;
}

export interface Selection {
  readonly selected: ReadonlySet<string>;
  /** The row a Shift range starts from. */
  readonly anchor: number;
  readonly range: PendingRange | null;
  /** The last range id given out. */
  readonly ranges: number;
}

export const emptySelection: Selection = { selected: new Set(), anchor: 0, range: null, ranges: 0 };

/** The rows to read for a range from the anchor to `to`, whichever way it goes. */
export interface RangeRead {
  readonly id: number;
  readonly offset: number;
  readonly limit: number;
}

/**
 * Replaces the selection (a plain click, Select all, Escape, a record opened by link): a range
 * still being read no longer lands. The anchor moves only when `anchor` is given.
 */
export function replace(s: Selection, uuids: Iterable<string>, anchor = s.anchor): Selection {
  return { ...s, selected: new Set(uuids), anchor, range: null };
}

/** The next Shift range starts from row `i`. */
export const setAnchor = (s: Selection, i: number): Selection => (i === s.anchor ? s : { ...s, anchor: i });

/**
 * Ctrl/Cmd-click or Space on a row: flips it. During a range read the flip is also noted, so the
 * range's answer keeps it: what the person did last wins.
 */
export function toggle(s: Selection, uuid: string): Selection {
  const selected = new Set(s.selected);
  const on = !selected.delete(uuid);
  if (on) selected.add(uuid);
  return { ...s, selected, range: s.range && noted(s.range, uuid, on) };
}

/**
 * A record gone from the service leaves the selection ("Delete selected" must not count it), and
 * stays out of a range whose answer was read before it went.
 */
export function forget(s: Selection, uuid: string): Selection {
  if (!s.selected.has(uuid) && !s.range) return s;
  const selected = new Set(s.selected);
  selected.delete(uuid);
  return { ...s, selected, range: s.range && noted(s.range, uuid, false) };
}

const noted = (r: PendingRange, uuid: string, on: boolean): PendingRange => ({
  ...r,
  toggled: new Map(r.toggled).set(uuid, on),
});

/**
 * Shift-click (or Shift+arrow) on row `to`: starts a range from the anchor, which stays put.
 * The row clicked (`uuid`, when its record is loaded) is selected at once so its box shows the
 * click; the rest waits for `rangeRead`. A newer range supersedes this one.
 */
export function startRange(s: Selection, to: number, uuid?: string): { state: Selection; read: RangeRead } {
  const id = s.ranges + 1;
  const from = Math.min(s.anchor, to);
  const added = uuid && !s.selected.has(uuid) ? uuid : null;
  const selected = added ? new Set(s.selected).add(added) : s.selected;
  return {
    state: { ...s, selected, ranges: id, range: { id, added, toggled: new Map() } },
    read: { id, offset: from, limit: Math.max(s.anchor, to) - from + 1 },
  };
}

/**
 * Select all: a read of every row of the view, kept like a range's (its answer replaces the
 * selection, toggles made meanwhile on top; a plain click or Escape meanwhile supersedes it).
 * The anchor stays.
 */
export function startAll(s: Selection): { state: Selection; id: number } {
  const id = s.ranges + 1;
  return { state: { ...s, ranges: id, range: { id, added: null, toggled: new Map(), all: true } }, id };
}

/**
 * Whether the header box shows Select all as asked while its read is on its way: not once the
 * read is superseded, nor once a row has been Ctrl-toggled out meanwhile.
 */
export const allPending = (s: Selection) => !!s.range?.all && ![...s.range.toggled.values()].includes(false);

/** Whether range `id` is still waiting for its answer (not superseded). */
export const awaiting = (s: Selection, id: number) => s.range?.id === id;

/**
 * The service's answer for range `id`: its rows replace the selection, with the rows toggled or
 * gone meanwhile left as that left them. The rows are the view's at the time of the read, not
 * those shown at the click. An answer to a superseded range changes nothing.
 */
export function rangeRead(s: Selection, id: number, uuids: Iterable<string>): Selection {
  if (!awaiting(s, id)) return s;
  const selected = new Set(uuids);
  for (const [u, on] of s.range!.toggled) {
    if (on) selected.add(u);
    else selected.delete(u);
  }
  return { ...s, selected, range: null };
}

/**
 * Range `id` could not be read: only the row its click added leaves again (unless toggled
 * since); what was selected meanwhile (Ctrl-clicks) stays.
 */
export function rangeFailed(s: Selection, id: number): Selection {
  if (!awaiting(s, id)) return s;
  const { added, toggled } = s.range!;
  if (!added || toggled.has(added)) return { ...s, range: null };
  const selected = new Set(s.selected);
  selected.delete(added);
  return { ...s, selected, range: null };
}

/** The header box of a list of `total` rows: checked, mixed or clear. */
export function allState(selected: number, total: number): 'all' | 'some' | 'none' {
  if (selected === 0) return 'none';
  return selected >= total ? 'all' : 'some';
}

/**
 * The loaded rows around the cursor, taken when a delete is confirmed (before the rows go):
 * where the cursor goes is decided from these once the service has said what it really deleted.
 */
export interface AroundCursor {
  readonly at: number;
  /** The cursor's own record; undefined when its row is not loaded. */
  readonly own?: string;
  /** The loaded rows right after the cursor, in order, up to a row not loaded or one not asked to go. */
  readonly after: readonly string[];
  /** The loaded rows right before it, nearest first, likewise. */
  readonly before: readonly string[];
}

/**
 * The rows around row `at` (`uuidAt`: a loaded row's record, else undefined) when the records
 * `asked` are to be deleted. Each side stops at the first row not asked to go (it survives), so a
 * few rows are read in the usual case, and at most the loaded pages when a block covers them.
 */
export function aroundCursor(at: number, uuidAt: (i: number) => string | undefined, asked: ReadonlySet<string>): AroundCursor {
  const reach = (step: 1 | -1) => {
    const rows: string[] = [];
    for (let j = at + step, u = uuidAt(j); u !== undefined; j += step, u = uuidAt(j)) {
      rows.push(u);
      if (!asked.has(u)) break;
    }
    return rows;
  };
  return { at, own: uuidAt(at), after: reach(1), before: reach(-1) };
}

/**
 * Where the cursor goes once the records in `gone` are deleted (all asked, some, or none when the
 * service refused): a record whose new place the service tells (`plus` 1: the row after it),
 * or an index when no loaded row survived next to the cursor.
 */
export type CursorTarget = { readonly uuid: string; readonly plus: 0 | 1 } | { readonly index: number };

/**
 * The cursor stays on its record if that survived; else it goes to the next surviving row after
 * it, i.e. the row after the last survivor before it (every loaded row between is gone). With no
 * survivor loaded on either side, the rows gone above it are at least those loaded: exact when
 * they reach the list's top, and `cursorWithin` keeps the index inside the shrunk list.
 */
export function cursorAfterDelete(a: AroundCursor, gone: ReadonlySet<string>): CursorTarget {
  if (gone.size === 0 || a.own === undefined) return { index: a.at };
  if (!gone.has(a.own)) return { uuid: a.own, plus: 0 };
  const next = a.after.find((u) => !gone.has(u));
  if (next !== undefined) return { uuid: next, plus: 0 };
  const prev = a.before.find((u) => !gone.has(u));
  if (prev !== undefined) return { uuid: prev, plus: 1 };
  return { index: Math.max(0, a.at - a.before.length) };
}

/**
 * The cursor in a list of `total` rows that may have shrunk under it (rows deleted at its end, a
 * sync): past the end it goes to the last row; an empty list has none (index 0 of nothing). A
 * capped total is only a lower bound, with rows past it: the cursor stays.
 */
export const cursorWithin = (active: number, total: number, capped: boolean) =>
  capped || active < total ? active : Math.max(0, total - 1);
