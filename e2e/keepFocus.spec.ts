import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiToken, baseUrl, field, openDataset } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD, deleteOverHttp, findAndOpen, restoreOverHttp } from './support/curate.js';
import { everyShot } from './support/screens.js';

// A control that the keyboard just pressed must not drop the focus to the page body, where Escape
// no longer reaches the panel around it and the next Tab starts over at the top: not while it is
// busy (Restore, + Add), not when it has nothing left to do (Undo after the last step, Previous at
// the first record), not when its own row goes (a restored Trash entry).

/**
 * From now on, notes every moment the focus is on the page body: after each change to the page
 * (the moment a focused button is removed) and on each frame (a disabled button loses it there).
 */
async function watchFocus(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { lostFocus: string[]; stopWatch?: () => void };
    w.stopWatch?.();
    w.lostFocus = [];
    const check = (when: string) => {
      if (document.activeElement === document.body || document.activeElement === null) w.lostFocus.push(when);
    };
    const mo = new MutationObserver(() => check('after a change'));
    mo.observe(document.body, { subtree: true, childList: true, attributes: true });
    let frame = requestAnimationFrame(function tick() {
      check('on a frame');
      frame = requestAnimationFrame(tick);
    });
    w.stopWatch = () => {
      mo.disconnect();
      cancelAnimationFrame(frame);
    };
  });
}
const lostFocus = (page: Page) =>
  page.evaluate(() => {
    const w = window as unknown as { lostFocus: string[]; stopWatch?: () => void };
    w.stopWatch?.();
    return [...new Set(w.lostFocus)];
  });

const messages = (page: Page) => page.getByRole('region', { name: 'Messages' });
const undoRedo = (page: Page) => page.getByRole('group', { name: 'Undo and redo' });
const focusedIn = (l: Locator) => l.evaluate((el) => el.contains(document.activeElement) && el !== document.activeElement);

test('Trash: Restore keeps the focus in the panel, through the request and the entry going; Escape then closes it', async ({ page }) => {
  const i = 4;
  expect(await deleteOverHttp([SYNTH_RECORD(i)])).toBe(200);
  await openDataset(page, 'Synthetic Samples');
  const opener = page.getByRole('banner').getByRole('button', { name: 'Trash' });
  await opener.focus();
  await page.keyboard.press('Enter');
  const trash = page.getByRole('complementary', { name: 'Trash' });
  const entry = trash
    .getByRole('list', { name: 'Deleted records' })
    .getByRole('listitem')
    .filter({ hasText: SYNTH_NAME(i) });
  await entry.getByRole('button', { name: `Restore ${SYNTH_NAME(i)}` }).focus();
  await watchFocus(page);
  await page.keyboard.press('Enter');
  await expect(entry).toHaveCount(0);
  await expect(trash.getByRole('heading', { name: 'Records' })).toBeFocused();
  expect(await lostFocus(page)).toEqual([]);
  await page.keyboard.press('Escape');
  await expect(trash).toHaveCount(0);
  await expect(opener).toBeFocused();
});

test('+ Add: the focus goes into the new child record, on its first field; the table sizes its columns by their content', async ({
  page,
}) => {
  const i = 6;
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(i));
  const section = editor.getByRole('region', { name: 'Subsamples records' });
  const add = section.getByRole('button', { name: 'Add Subsamples record' });
  const table = section.getByRole('table', { name: 'Subsamples records' });
  const rows = table.locator('tbody > tr:not(.child-body)');
  const before = await rows.count();
  await add.focus();
  await watchFocus(page);
  await page.keyboard.press('Enter');
  await expect(rows).toHaveCount(before + 1);
  const child = section.getByRole('group', { name: /^Subsamples record / }).last();
  const split = field(child, 'Split').getByRole('textbox');
  await expect(split).toBeFocused();
  expect(await lostFocus(page)).toEqual([]);

  // Typed at once, it lands in the new record; a long note makes its column the wide one.
  await page.keyboard.type('q');
  await page.keyboard.press('Enter');
  await expect(field(child, 'Split').getByRole('status')).toHaveText('Saved');
  const notes = field(child, 'Notes').getByRole('textbox');
  await notes.focus();
  await page.keyboard.type('a long note that takes the room of several short values');
  await page.keyboard.press('Control+Enter');
  await expect(field(child, 'Notes').getByRole('status')).toHaveText('Saved');
  const header = (name: string) => table.getByRole('columnheader', { name });
  const width = async (name: string) => (await header(name).boundingBox())!.width;
  await expect.poll(async () => (await width('Notes')) > 2 * (await width('Split'))).toBe(true);
  // No column below a readable minimum (6 characters of 13 px text), at every size.
  for (const size of [
    { width: 1024, height: 700 },
    { width: 1920, height: 1080 },
  ]) {
    await page.setViewportSize(size);
    for (const name of ['Split', 'Mass (g)', 'Notes']) expect(await width(name), `${name} at ${size.width}`).toBeGreaterThanOrEqual(40);
    // The actions stay in the pane: nothing scrolls sideways.
    expect(await table.evaluate((t) => t.parentElement!.scrollWidth <= t.parentElement!.clientWidth)).toBe(true);
  }
  await everyShot(page, 'child-table-widths', () => expect(header('Notes')).toBeVisible());
});

test('Undo pressed for the last step: the button stays focused (unavailable), and Enter there does nothing', async ({ page }) => {
  const i = 7;
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(i));
  const input = field(editor, 'Medium Text field').getByRole('textbox');
  const was = await input.inputValue();
  await input.focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('changed, then undone from the button');
  await page.keyboard.press('Enter');
  await expect(field(editor, 'Medium Text field').getByRole('status')).toHaveText('Saved');
  const undo = undoRedo(page).getByRole('button', { name: 'Undo' });
  await undo.focus();
  await watchFocus(page);
  await page.keyboard.press('Enter');
  await expect(messages(page).getByText(/^Undid/)).toBeVisible();
  await expect(input).toHaveValue(was);
  await expect(undo).toBeDisabled();
  await expect(undo).toBeFocused();
  expect(await lostFocus(page)).toEqual([]);
  // Unavailable: Enter neither undoes more nor says anything.
  await page.keyboard.press('Enter');
  await expect(messages(page).getByText('Nothing to undo')).toHaveCount(0);
  // Shift+Tab goes on from there (Redo, now available, is next to it).
  await page.keyboard.press('Tab');
  await expect(undoRedo(page).getByRole('button', { name: 'Redo' })).toBeFocused();
});

test('Previous record pressed until the first: the button stays focused', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const second = page.getByRole('grid').getByRole('row').nth(2);
  const name = (await second.getAttribute('aria-label')) ?? (await second.innerText()).split('\n')[0]!;
  await second.dblclick();
  const prev = page.locator('aside.editor').getByRole('button', { name: 'Previous record' });
  await prev.focus();
  await watchFocus(page);
  await page.keyboard.press('Enter');
  await expect(page.locator('aside.editor')).not.toHaveAttribute('aria-label', `Record ${name}`);
  await expect(prev).toBeDisabled();
  await expect(prev).toBeFocused();
  expect(await lostFocus(page)).toEqual([]);
});

test('a record gone while shown: the pane says so plainly and what to do; Delete selected no longer counts it', async ({ page }) => {
  const i = 12;
  await openDataset(page, 'Synthetic Samples');
  await findAndOpen(page, SYNTH_NAME(i));
  const toolbar = page.getByRole('toolbar', { name: 'Record actions' });
  await expect(toolbar.getByRole('button', { name: 'Delete selected (1)' })).toBeEnabled();
  expect(await deleteOverHttp([SYNTH_RECORD(i)])).toBe(200);
  const pane = page.getByRole('complementary', { name: 'Record not loaded' });
  const alert = pane.getByRole('alert');
  await expect(alert).toContainText('This record is not here any more: it was deleted');
  await expect(alert).toContainText('put back from the Trash');
  expect(await alert.innerText()).not.toMatch(/Datarecord|can't be found/);
  await expect(toolbar.getByRole('button', { name: /^Delete selected/ })).toHaveText('Delete selected');
  await expect(toolbar.getByRole('button', { name: /^Delete selected/ })).toBeDisabled();
  await everyShot(page, 'record-gone', () => expect(alert).toBeVisible());
  expect(await restoreOverHttp(SYNTH_RECORD(i))).toBe(200);
});

test('the save badge tells a screen reader which field was not saved, why and what to do', async ({ page }) => {
  const i = 13;
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(i));
  const integer = field(editor, 'Integer field');
  await integer.getByRole('textbox').focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('twelve');
  const badge = integer.getByRole('status');
  await expect(badge).toHaveText('Not saved');
  const label = await badge.getAttribute('aria-label');
  expect(label).toMatch(/^Integer field not saved: .+\. Change the value and try again; Escape puts back the saved one\.$/);
  expect(label).not.toContain('Save state');
  await page.keyboard.press('Escape');
  await expect(badge).toHaveCount(0);
});

test('a job that fails: its error is said (role alert) in the Jobs panel', async ({ page }) => {
  const fd = new FormData();
  fd.append('file', new Blob(['{"not an ODR export": true}'], { type: 'application/json' }), 'broken.json');
  const res = await fetch(`${baseUrl()}/local/import`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await apiToken()}` },
    body: fd,
  });
  expect(res.status).toBe(202);
  await page.goto(baseUrl());
  await page.getByRole('banner').getByRole('button', { name: /^Jobs/ }).focus();
  await page.keyboard.press('Enter');
  const panel = page.getByRole('complementary', { name: 'Jobs' });
  const failed = panel.locator('li.job-failed').first();
  await expect(failed).toBeVisible();
  await expect(failed.getByRole('alert')).not.toBeEmpty();
  expect(await focusedIn(panel)).toBe(true);
});

test('Make private, then Make public now, from the keyboard: each button keeps the focus once done', async ({ page }) => {
  const i = 16;
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(i));
  const status = editor.getByTestId('public-state');
  await expect(status).toHaveText(/^Public since/);
  const makePrivate = editor.getByRole('button', { name: 'Make private' });
  const makePublic = editor.getByRole('button', { name: 'Make public now' });
  await makePrivate.focus();
  await watchFocus(page);
  await page.keyboard.press('Enter');
  await expect(status).toHaveText('Private');
  await expect(makePrivate).toBeDisabled();
  await expect(makePrivate).toBeFocused();
  await makePublic.focus();
  await page.keyboard.press('Enter');
  await expect(status).toHaveText(/^Public since/);
  await expect(makePublic).toBeDisabled();
  await expect(makePublic).toBeFocused();
  expect(await lostFocus(page)).toEqual([]);
});

test('Alt+↓ from a field: the next record shows with the focus in the same field', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const rows = page.getByRole('grid').getByRole('row');
  const first = (await rows.nth(1).getAttribute('aria-label'))!;
  const second = (await rows.nth(2).getAttribute('aria-label'))!;
  await rows.nth(1).dblclick();
  const pane = page.getByRole('complementary', { name: `Record ${first}` });
  await field(pane, 'Medium Text field').getByRole('textbox').focus();
  await watchFocus(page);
  await page.keyboard.press('Alt+ArrowDown');
  const next = page.getByRole('complementary', { name: `Record ${second}` });
  await expect(field(next, 'Medium Text field').getByRole('textbox')).toBeFocused();
  expect(await lostFocus(page)).toEqual([]);
});
