import { describe, expect, it } from 'vitest';
import {
  allPending,
  allState,
  aroundCursor,
  cursorAfterDelete,
  cursorWithin,
  emptySelection,
  forget,
  rangeFailed,
  rangeRead,
  replace,
  setAnchor,
  startAll,
  startRange,
  toggle,
  type Selection,
} from '../../renderer/src/screens/dataset/selectionModel.js';

/**
 * The list's selection rules without React or a service: a range's "read" is the answer handed
 * to rangeRead, as the service would give it for the offset and limit startRange asked for.
 * Rows are named r0, r1, … by their place in the view.
 */
const rows = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `r${from + i}`);
const sorted = (s: Selection) => [...s.selected].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
/** A plain click on row i: the selection is that row, the anchor moves there. */
const click = (s: Selection, i: number) => replace(setAnchor(s, i), [`r${i}`]);

describe('selectionModel', () => {
  it('a Shift range forward reads from the anchor to the row clicked, which shows selected at once', () => {
    const s = click(emptySelection, 2);
    const { state, read } = startRange(s, 5, 'r5');
    expect([read.offset, read.limit]).toEqual([2, 4]);
    expect(sorted(state)).toEqual(['r2', 'r5']);
    const done = rangeRead(state, read.id, rows(2, 5));
    expect(sorted(done)).toEqual(['r2', 'r3', 'r4', 'r5']);
    expect(done.anchor).toBe(2);
    expect(done.range).toBeNull();
  });

  it('a Shift range backward reads from the row clicked to the anchor', () => {
    const s = click(emptySelection, 6);
    const { state, read } = startRange(s, 3, 'r3');
    expect([read.offset, read.limit]).toEqual([3, 4]);
    expect(sorted(rangeRead(state, read.id, rows(3, 6)))).toEqual(['r3', 'r4', 'r5', 'r6']);
  });

  it('a second Shift-click ranges from the same anchor and replaces the first range', () => {
    const s = click(emptySelection, 4);
    const first = startRange(s, 8, 'r8');
    const s1 = rangeRead(first.state, first.read.id, rows(4, 8));
    const second = startRange(s1, 1, 'r1');
    expect([second.read.offset, second.read.limit]).toEqual([1, 4]);
    expect(sorted(rangeRead(second.state, second.read.id, rows(1, 4)))).toEqual(['r1', 'r2', 'r3', 'r4']);
  });

  it('Ctrl toggles made while a range is read go on top of it, the last toggle of a row winning', () => {
    const { state, read } = startRange(click(emptySelection, 1), 4, 'r4');
    let s = toggle(state, 'r2'); // inside the range: on …
    s = toggle(s, 'r2'); // … and off again
    s = toggle(s, 'r6'); // outside the range: on
    s = toggle(s, 'r4'); // the row Shift-clicked: off
    expect(sorted(s)).toEqual(['r1', 'r6']);
    const done = rangeRead(s, read.id, rows(1, 4));
    expect(sorted(done)).toEqual(['r1', 'r3', 'r6']);
  });

  it('a range that cannot be read takes back only the row its click added; toggles made meanwhile stay', () => {
    const { state, read } = startRange(click(emptySelection, 1), 4, 'r4');
    const s = toggle(state, 'r6');
    expect(sorted(rangeFailed(s, read.id))).toEqual(['r1', 'r6']);
    // Its row toggled during the read keeps that toggle's state.
    const s2 = toggle(toggle(state, 'r4'), 'r4');
    expect(sorted(rangeFailed(s2, read.id))).toEqual(['r1', 'r4']);
    // A row already selected before the Shift-click was not added by it, and stays.
    const before = startRange(toggle(click(emptySelection, 1), 'r4'), 4, 'r4');
    expect(sorted(rangeFailed(before.state, before.read.id))).toEqual(['r1', 'r4']);
  });

  it('a range over rows deleted meanwhile selects what the view holds when it is read', () => {
    const { state, read } = startRange(click(emptySelection, 0), 3, 'r3');
    // r1 and r2 were deleted elsewhere before the read: rows 0–3 of the view are now these.
    const done = rangeRead(state, read.id, ['r0', 'r3', 'r4', 'r5']);
    expect(sorted(done)).toEqual(['r0', 'r3', 'r4', 'r5']);
    // Fewer rows than asked for (the view ends before the row clicked): only those.
    const short = startRange(click(emptySelection, 0), 3, 'r3');
    expect(sorted(rangeRead(short.state, short.read.id, ['r0']))).toEqual(['r0']);
  });

  it('a record gone while its range is read stays out of the range when the answer lands', () => {
    const { state, read } = startRange(click(emptySelection, 0), 3, 'r3');
    // The answer was read before r2 went; the pane's 404 for r2 arrives first.
    const s = forget(state, 'r2');
    expect(sorted(rangeRead(s, read.id, rows(0, 3)))).toEqual(['r0', 'r1', 'r3']);
    // Gone and not selected, with no range waiting: nothing changes.
    const idle = click(emptySelection, 0);
    expect(forget(idle, 'r9')).toBe(idle);
  });

  it('a plain click, Select all or a newer range during the read: the older answer changes nothing', () => {
    const { state, read } = startRange(click(emptySelection, 1), 4, 'r4');
    const clicked = click(state, 7);
    expect(rangeRead(clicked, read.id, rows(1, 4))).toBe(clicked);
    expect(rangeFailed(clicked, read.id)).toBe(clicked);
    const newer = startRange(state, 2, 'r2');
    const late = rangeRead(newer.state, read.id, rows(1, 4));
    expect(late).toBe(newer.state);
    expect(sorted(rangeRead(late, newer.read.id, rows(1, 2)))).toEqual(['r1', 'r2']);
  });

  it('Select all, then a Ctrl toggle takes one row out and the header box turns mixed', () => {
    const all = replace(click(emptySelection, 3), rows(0, 9));
    expect(allState(all.selected.size, 10)).toBe('all');
    const less = toggle(all, 'r5');
    expect(sorted(less)).toEqual(rows(0, 9).filter((r) => r !== 'r5'));
    expect(allState(less.selected.size, 10)).toBe('some');
    expect(allState(toggle(less, 'r5').selected.size, 10)).toBe('all');
    expect(allState(replace(less, []).selected.size, 10)).toBe('none');
  });

  it('Select all is read like a range: toggles made meanwhile stay on top, a plain click or Escape supersedes it', () => {
    const s = click(emptySelection, 1);
    const asked = startAll(s);
    expect(sorted(asked.state)).toEqual(['r1']);
    // Ctrl-click on the row already selected, before the uuids arrive: it stays out.
    const untoggled = toggle(asked.state, 'r1');
    expect(sorted(rangeRead(untoggled, asked.id, rows(0, 4)))).toEqual(['r0', 'r2', 'r3', 'r4']);
    // A plain click meanwhile: the answer no longer lands.
    const clicked = click(asked.state, 3);
    expect(sorted(rangeRead(clicked, asked.id, rows(0, 4)))).toEqual(['r3']);
    // Escape meanwhile: nothing selected, and nothing after the answer.
    const cleared = replace(asked.state, []);
    expect(sorted(rangeRead(cleared, asked.id, rows(0, 4)))).toEqual([]);
    // Unread: what was selected stays.
    expect(sorted(rangeFailed(asked.state, asked.id))).toEqual(['r1']);
    expect(rangeRead(asked.state, asked.id, rows(0, 4)).anchor).toBe(1);
  });

  it('the header box shows Select all as asked only while its read is still awaited', () => {
    const s = click(emptySelection, 1);
    const asked = startAll(s);
    expect(allPending(s)).toBe(false);
    expect(allPending(asked.state)).toBe(true);
    // A Ctrl-click that adds a row keeps it asked; one that takes a row out does not.
    expect(allPending(toggle(asked.state, 'r3'))).toBe(true);
    expect(allPending(toggle(asked.state, 'r1'))).toBe(false);
    // Cancelled (a click, Escape, a view change), answered, failed, or a Shift range instead.
    expect(allPending(click(asked.state, 3))).toBe(false);
    expect(allPending(replace(asked.state, [], 0))).toBe(false);
    expect(allPending(rangeRead(asked.state, asked.id, rows(0, 4)))).toBe(false);
    expect(allPending(rangeFailed(asked.state, asked.id))).toBe(false);
    expect(allPending(startRange(asked.state, 4, 'r4').state)).toBe(false);
  });

  it('replacing the selection keeps the anchor unless one is given', () => {
    const s = click(emptySelection, 3);
    const all = replace(s, rows(0, 9));
    expect(all.anchor).toBe(3);
    // Select all, then Shift-click: the range starts where the last plain click was.
    const { read } = startRange(all, 6, 'r6');
    expect([read.offset, read.limit]).toEqual([3, 4]);
    // A record opened by link, or a new view, moves the anchor with the selection.
    expect(replace(all, ['r8'], 8).anchor).toBe(8);
    expect(replace(all, [], 0).anchor).toBe(0);
    // A Ctrl toggle does not move it (the screen sets it, as for any pick without Shift).
    expect(toggle(all, 'r1').anchor).toBe(3);
  });

  // The cursor's record once a delete is answered, in a list of 20 rows of which `loaded` are read
  // (the cursor's among them): the rules' place, found in the list that is left, as the screen
  // does (the service tells a record's new place; the shrunk total keeps the cursor inside).
  const afterDelete = (active: number, asked: number[], { loaded = [0, 19], gone = asked } = {}) => {
    const list = rows(0, 19);
    const name = (is: number[]) => new Set(is.map((i) => `r${i}`));
    const around = aroundCursor(active, (j) => (j >= loaded[0]! && j <= loaded[1]! ? list[j] : undefined), name(asked));
    const left = list.filter((u) => !name(gone).has(u));
    const target = cursorAfterDelete(around, name(gone));
    const i = 'index' in target ? target.index : left.indexOf(target.uuid) + target.plus;
    return left[cursorWithin(i, left.length, false)] ?? 'none';
  };
  const span = (from: number, to: number) => rows(from, to).map((u) => Number(u.slice(1)));

  it('after a delete the cursor is on the next surviving row, else the one before, else none', () => {
    // One row, and a block with the cursor on its last row (Shift-click down) or its first (up).
    expect(afterDelete(4, [4])).toBe('r5');
    expect(afterDelete(6, [4, 5, 6])).toBe('r7');
    expect(afterDelete(4, [4, 5, 6])).toBe('r7');
    // Rows picked apart (Ctrl), the cursor on one of them or on a row kept.
    expect(afterDelete(5, [1, 5, 8])).toBe('r6');
    expect(afterDelete(3, [1, 5, 8])).toBe('r3');
    expect(afterDelete(5, [4, 5, 6, 9])).toBe('r7');
    // A block ending the list: the row before it; the last row alone likewise.
    expect(afterDelete(19, [17, 18, 19])).toBe('r16');
    expect(afterDelete(17, [17, 18, 19])).toBe('r16');
    expect(afterDelete(19, [19])).toBe('r18');
    // Everything (Select all), the cursor anywhere: no row left.
    expect(afterDelete(0, span(0, 19))).toBe('none');
    expect(afterDelete(6, span(0, 19))).toBe('none');
  });

  it('after a delete of rows not all loaded, the cursor still lands on the next surviving row', () => {
    // The block's top far above the loaded rows (Shift+PageDown from row 2): the row after it.
    expect(afterDelete(14, span(2, 14), { loaded: [10, 19] })).toBe('r15');
    expect(afterDelete(10, span(2, 10), { loaded: [8, 12] })).toBe('r11');
    // Its bottom not loaded, the cursor on its top: the row after it all the same.
    expect(afterDelete(3, span(3, 15), { loaded: [0, 8] })).toBe('r16');
    // Loaded rows all deleted on both sides: the index less the loaded rows gone above, exact
    // when they reach the list's top (Shift+Home from row 15).
    expect(afterDelete(0, span(0, 15), { loaded: [0, 8] })).toBe('r16');
    expect(afterDelete(4, span(0, 15), { loaded: [0, 8] })).toBe('r16');
    // A block that ends the list with its top not loaded (Shift+End from row 5): the row before.
    expect(afterDelete(19, span(5, 19), { loaded: [12, 19] })).toBe('r4');
    // The cursor's own row kept, deleted rows above it not loaded: it stays on its record.
    expect(afterDelete(12, [...span(0, 9), 11], { loaded: [10, 19] })).toBe('r12');
  });

  it('after a refused or partial delete, the cursor goes by what was really deleted', () => {
    // Refused: nothing moves, the cursor on a row asked to go or not.
    expect(afterDelete(6, [4, 5, 6], { gone: [] })).toBe('r6');
    expect(afterDelete(12, span(2, 14), { loaded: [10, 19], gone: [] })).toBe('r12');
    // Some deleted before a chunk was refused: the cursor's record stays if it was not deleted...
    expect(afterDelete(6, [4, 5, 6], { gone: [4, 5] })).toBe('r6');
    // ...else it goes to the next row left, which may be one asked to go.
    expect(afterDelete(4, [4, 5, 6], { gone: [4] })).toBe('r5');
    expect(afterDelete(14, span(2, 14), { loaded: [10, 19], gone: [...span(2, 9), 14] })).toBe('r15');
    expect(afterDelete(19, [17, 18, 19], { gone: [18, 19] })).toBe('r17');
  });

  it('the cursor stays within a list that shrank, unless the total is a lower bound', () => {
    expect(cursorWithin(3, 10, false)).toBe(3);
    expect(cursorWithin(12, 10, false)).toBe(9);
    expect(cursorWithin(12, 0, false)).toBe(0);
    // A capped count: rows exist past it (Next waits for the exact count).
    expect(cursorWithin(12, 10, true)).toBe(12);
  });
});
