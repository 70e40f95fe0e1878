import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiToken, baseUrl, field, openDataset, readRecord, screenshot } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD, findAndOpen } from './support/curate.js';
import { SYNTH } from '../bench/synthetic.js';

// Issue #15: the main tasks by keyboard alone. Every step is reached with Tab / Shift+Tab and
// done with Enter, arrows, typing and Escape (the test only reads the page, never clicks); the
// focused control always shows a focus ring, and every dialog or panel gives the focus back to
// what opened it. Keys inside a dialog stay there: Escape closes only that dialog (the record
// pane and the selection behind it stay), Alt+↓ does not move to the next record behind it.

const grid = (page: Page) => page.getByRole('grid');
const pane = (page: Page) => page.locator('aside.editor');

const isFocused = (l: Locator) => l.evaluate((el) => el === document.activeElement);

/**
 * Tab until `target` has the focus, or Shift+Tab when it comes before the focused element in the
 * page; fails when it is not reached in `max` steps.
 */
async function tabTo(page: Page, target: Locator, max = 120) {
  await expect(target).toBeVisible();
  const back = await target.evaluate(
    (el) => !!document.activeElement && !!(el.compareDocumentPosition(document.activeElement) & Node.DOCUMENT_POSITION_FOLLOWING),
  );
  for (let i = 0; i < max; i++) {
    if (await isFocused(target)) return expectRing(target);
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`not reached by ${back ? 'Shift+Tab' : 'Tab'} in ${max} steps: ${target.toString()}`);
}

/** The focused control is drawn with a visible focus indicator (outline or shadow). */
async function expectRing(l: Locator) {
  const ring = await l.evaluate((el) => {
    const s = getComputedStyle(el);
    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
    return { visible: el.matches(':focus-visible'), drawn: outline || s.boxShadow !== 'none' };
  });
  expect(ring, `focus ring on ${l.toString()}`).toEqual({ visible: true, drawn: true });
}

/** Enter on the focused `opener` shows `dialog` with the focus inside; Escape closes it and the focus comes back. */
async function openAndEscape(page: Page, opener: Locator, dialog: Locator) {
  await expect(opener).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeVisible();
  expect(await dialog.evaluate((d) => d.contains(document.activeElement)), 'focus inside the dialog').toBe(true);
  // The window's shortcuts wait while a dialog is open: Alt+↓ would show the next record behind it.
  // (Not on a drop-down, where Alt+↓ opens its list.)
  if (await dialog.evaluate(() => document.activeElement?.tagName !== 'SELECT')) await page.keyboard.press('Alt+ArrowDown');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(opener).toBeFocused();
}

const shortText = async (uuid: string) =>
  (await readRecord(uuid)).body.fields.find((f) => f.field_name === 'Medium Text field')?.value ?? null;

test('keyboard only: choose a dataset, move through records, edit, undo, every dialog and panel, filter, export', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(baseUrl());
  await expect(page.getByRole('heading', { name: 'Choose a dataset' })).toBeVisible();

  // Choose a dataset.
  const nav = page.getByRole('navigation', { name: 'Datasets' });
  await tabTo(page, nav.getByRole('link', { name: /^Synthetic Samples/ }).first());
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Synthetic Samples' })).toBeVisible();

  // Into the list from the search box; arrows show each record in the pane.
  const search = page.getByRole('searchbox', { name: 'Search records' });
  await tabTo(page, search);
  await page.keyboard.press('ArrowDown');
  await expect(grid(page)).toBeFocused();
  await expectRing(grid(page));
  await page.keyboard.press('Home');
  await expect(pane(page)).toHaveAttribute('aria-label', /^Record S-000000$/);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(pane(page)).toHaveAttribute('aria-label', 'Record S-000002');
  await page.keyboard.press('ArrowUp');
  await expect(pane(page)).toHaveAttribute('aria-label', 'Record S-000001');
  await expect(grid(page)).toBeFocused();

  // Enter edits: the focus goes into the record; a value typed and Enter saves it.
  const before = await shortText(SYNTH_RECORD(1));
  await page.keyboard.press('Enter');
  expect(await pane(page).evaluate((p) => p.contains(document.activeElement))).toBe(true);
  const input = field(pane(page), 'Medium Text field').getByRole('textbox');
  await tabTo(page, input);
  await page.keyboard.press('Control+a');
  await page.keyboard.type('typed by keyboard');
  await page.keyboard.press('Enter');
  await expect.poll(() => shortText(SYNTH_RECORD(1))).toBe('typed by keyboard');
  // Escape goes back to the list, on the same record; Ctrl+Z takes the change back.
  await page.keyboard.press('Escape');
  await expect(grid(page)).toBeFocused();
  await expect(pane(page)).toHaveAttribute('aria-label', 'Record S-000001');
  await page.keyboard.press('Control+z');
  await expect.poll(() => shortText(SYNTH_RECORD(1))).toBe(before);

  // A dialog opened from the record pane: Escape closes the dialog, not the pane.
  const deleteRecord = pane(page).getByRole('button', { name: 'Delete record' });
  await tabTo(page, deleteRecord);
  await openAndEscape(page, deleteRecord, page.getByRole('dialog', { name: 'Delete this record?' }));
  await expect(pane(page)).toHaveAttribute('aria-label', 'Record S-000001');
  expect((await readRecord(SYNTH_RECORD(1))).status).toBe(200);

  // Every toolbar dialog (and the dataset's Import CSV…), with the record open and selected behind it.
  const toolbar = page.getByRole('toolbar', { name: 'Record actions' });
  for (const [button, dialog] of [
    ['Columns…', 'Columns'],
    ['Export…', /^Export /],
    ['Import CSV…', /^Import CSV into/],
    ['Batch edit…', 'Batch edit 1 record'],
    ['Delete selected (1)', 'Delete this record?'],
  ] as const) {
    const opener = page.getByRole('button', { name: button, exact: true });
    await tabTo(page, opener);
    await openAndEscape(page, opener, page.getByRole('dialog', { name: dialog }));
    await expect(pane(page), `the pane stays after Escape in ${button}`).toHaveAttribute('aria-label', 'Record S-000001');
    await expect(toolbar.getByRole('button', { name: 'Delete selected (1)' })).toBeEnabled();
  }

  // Every side panel: its heading takes the focus, Escape gives it back to its button.
  for (const name of ['Sync', 'Jobs', 'Users', 'Trash']) {
    const opener = page.getByRole('banner').getByRole('button', { name: new RegExp(`^${name}($| \\()`) });
    await tabTo(page, opener);
    await page.keyboard.press('Enter');
    await expect(page.getByRole('complementary', { name })).toBeVisible();
    await expect(page.getByRole('complementary', { name }).getByRole('heading', { name })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('complementary', { name })).toHaveCount(0);
    await expect(opener).toBeFocused();
  }

  // Filter: open the filter bar, add "Public status", choose "is private"; the count says how many match.
  const filters = toolbar.getByTestId('filters-toggle');
  await tabTo(page, filters);
  await page.keyboard.press('Enter');
  const add = page.getByRole('combobox', { name: 'Add a filter' });
  await tabTo(page, add);
  await page.keyboard.press('End'); // the last choice: Public status
  const publicFilter = page.getByRole('combobox', { name: 'Public or private' });
  await expect(publicFilter).toBeVisible();
  await tabTo(page, publicFilter);
  await page.keyboard.press('End');
  await expect(publicFilter).toHaveValue('private');
  await expect(page.getByTestId('match-count')).toHaveText(/^[\d,]+ of [\d,]+ match$/);

  // Export the filtered view: start it from the dialog, wait for the download link, Escape back.
  const exportButton = toolbar.getByRole('button', { name: 'Export…' });
  await tabTo(page, exportButton);
  await page.keyboard.press('Enter');
  const exportDialog = page.getByRole('dialog', { name: /^Export / });
  await tabTo(page, exportDialog.getByRole('button', { name: 'Export', exact: true }));
  await page.keyboard.press('Enter');
  const download = exportDialog.getByRole('link', { name: 'Download' });
  await expect(download).toBeVisible();
  await tabTo(page, download);
  await page.keyboard.press('Escape');
  await expect(exportDialog).toHaveCount(0);
  await expect(exportButton).toBeFocused();
});

// The flake once seen at "Escape goes back to the list": Chromium handles keys before the timer
// that re-renders a saved field, so Escape right after Enter read the field's value from before
// the save, took the saved text for an unsaved draft, reverted it and kept the focus. Both keys
// are dispatched in one task here, which is that order every time.
test('Enter then Escape before the save re-renders: the focus goes back to the list, the edit is one undo step', async ({ page }) => {
  const i = 36;
  const before = await shortText(SYNTH_RECORD(i));
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(i));
  const input = field(editor, 'Medium Text field').getByRole('textbox');
  await input.focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('saved, then Escape at once');
  await input.evaluate((el) => {
    for (const key of ['Enter', 'Escape']) el.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
  });
  await expect(grid(page)).toBeFocused();
  await expect.poll(() => shortText(SYNTH_RECORD(i))).toBe('saved, then Escape at once');
  await expect(input).toHaveValue('saved, then Escape at once');
  const undo = page.getByRole('group', { name: 'Undo and redo' }).getByRole('button', { name: 'Undo' });
  await expect(undo).toHaveAttribute('title', /Undo the change to Medium Text field/);
  await page.keyboard.press('Control+z');
  await expect.poll(() => shortText(SYNTH_RECORD(i))).toBe(before);
  // The blur that Escape caused sent nothing more: nothing else is left to undo.
  await expect(undo).toBeDisabled();
});

// The flake once seen at "Ctrl+Z takes the change back": the test read the saved value from the
// service and pressed Ctrl+Z before the page had its answer, and the edit went on the undo list
// only with that answer, so Ctrl+Z found nothing to undo. A user's Ctrl+Z right after Enter is
// the same. Enter, Escape and Ctrl+Z in one task: the answer cannot have come yet, every time.
test('Ctrl+Z before the save answers takes the edit back, once it is saved', async ({ page }) => {
  const i = 7; // Record 7 (keepFocus.spec edits it too, and puts it back).
  const before = await shortText(SYNTH_RECORD(i));
  // Not what it holds (the test ends with its text redone there): the same text is no edit.
  const typed = before === 'undone before its answer' ? 'undone before its answer, again' : 'undone before its answer';
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(i));
  const input = field(editor, 'Medium Text field').getByRole('textbox');
  await input.focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.type(typed);
  const typing = await input.evaluate((el) => {
    for (const key of ['Enter', 'Escape']) el.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
    const at = document.activeElement!;
    at.dispatchEvent(new KeyboardEvent('keydown', { key: 'z', ctrlKey: true, bubbles: true, cancelable: true }));
    return at.tagName === 'INPUT' || at.tagName === 'TEXTAREA';
  });
  expect(typing, 'Ctrl+Z reached the window, not a text box').toBe(false);
  await expect(grid(page)).toBeFocused();
  const undoRedo = page.getByRole('group', { name: 'Undo and redo' });
  await expect(undoRedo.getByRole('button', { name: 'Redo' })).toHaveAttribute('title', /Redo the change to Medium Text field/);
  await expect.poll(() => shortText(SYNTH_RECORD(i))).toBe(before);
  await expect(input).toHaveValue(typeof before === 'string' ? before : '');
  await expect(undoRedo.getByRole('button', { name: 'Undo' })).toBeDisabled();
  // It was saved and then undone, in that order: redo puts the typed text back.
  await page.keyboard.press('Control+Shift+z');
  await expect.poll(() => shortText(SYNTH_RECORD(i))).toBe(typed);
  await expect(input).toHaveValue(typed);
});

// The column headers were ~20 Tab stops (Select all, each column's sort button and resize handle)
// between the grid and what follows it. They are cells of the grid now, reached the grid's way:
// ↑ from the top row, ←/→ between them, ↓ back to the rows; Tab leaves the grid in one step,
// from the rows as from the header. Enter still sorts, Shift+→ widens the column.
test('the column headers are cells of the grid: ↑ from the top row, ←/→, Enter sorts, Shift+→ widens; Tab leaves in one step', async ({
  page,
}) => {
  const columns = `${baseUrl()}/local/datasets/${SYNTH.dataset}/columns`;
  const auth = { Authorization: `Bearer ${await apiToken()}`, 'Content-Type': 'application/json' };
  const layout = ((await (await fetch(columns, { headers: auth })).json()) as { layout: { columns: unknown[] } | null }).layout;
  try {
    await openDataset(page, 'Synthetic Samples');
    const g = grid(page);
    await g.focus();
    await page.keyboard.press('Home');
    await expect(pane(page)).toHaveAttribute('aria-label', /^Record S-000000$/);
    await expect(g).toBeFocused();
    await expectRing(g);
    // Drawn by its frame: the grid is the scroller, and its sticky header row would cover its own.
    expect(await g.evaluate((el) => getComputedStyle(el.parentElement!).outlineStyle)).toBe('solid');
    await screenshot(page, 'grid-focus-1400');
    // One Tab: out of the grid, past the whole header row.
    await page.keyboard.press('Tab');
    const outside = () =>
      page.evaluate(
        () => !!document.activeElement && document.activeElement !== document.body && !document.activeElement.closest('[role="grid"]'),
      );
    expect(await outside(), 'Tab from the rows leaves the grid').toBe(true);
    const next = await page.evaluate(() => document.activeElement!.outerHTML.slice(0, 200));
    await page.keyboard.press('Shift+Tab');
    await expect(g).toBeFocused();

    // ↑ on the top row: the header row, at its first cell; → to the first chosen column.
    await page.keyboard.press('ArrowUp');
    const selectAll = g.getByRole('checkbox', { name: 'Select all records' });
    await expect(selectAll).toBeFocused();
    await expectRing(selectAll);
    await page.keyboard.press('ArrowRight');
    const head = g.getByRole('columnheader').nth(2);
    const sort = head.getByRole('button');
    await expect(sort).toBeFocused();
    await expectRing(sort);
    await page.keyboard.press('Enter');
    await expect(head).toHaveAttribute('aria-sort', 'ascending');
    await expect(sort).toBeFocused();
    for (const size of [
      { width: 1024, height: 700 },
      { width: 1920, height: 1080 },
    ]) {
      await page.setViewportSize(size);
      await expectRing(sort);
      await screenshot(page, `header-focus-${size.width}`);
    }
    await page.setViewportSize({ width: 1400, height: 880 });

    // Tab from the header goes where Tab from the rows went; back in, ↑ returns to the same cell.
    await page.keyboard.press('Tab');
    expect(await outside(), 'Tab from the header leaves the grid').toBe(true);
    expect(await page.evaluate(() => document.activeElement!.outerHTML.slice(0, 200))).toBe(next);
    await page.keyboard.press('Shift+Tab');
    await expect(g).toBeFocused();
    await page.keyboard.press('ArrowUp');
    await expect(sort).toBeFocused();

    // Shift+→ widens its column by 10 px (twice in one task: both count); ↓ is back on the rows.
    const handle = head.getByRole('separator');
    const width = Number(await handle.getAttribute('aria-valuenow'));
    await sort.evaluate((el) => {
      for (let i = 0; i < 2; i++)
        el.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', shiftKey: true, bubbles: true, cancelable: true }));
    });
    await expect(handle).toHaveAttribute('aria-valuenow', String(width + 20));
    await expect(sort).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(g).toBeFocused();
    await expect(pane(page)).toHaveAttribute('aria-label', /^Record S-/);
  } finally {
    // The other specs see the list's columns as they were.
    if (layout) await fetch(columns, { method: 'PUT', headers: auth, body: JSON.stringify({ columns: layout.columns }) });
    else await fetch(columns, { method: 'DELETE', headers: auth });
  }
});
