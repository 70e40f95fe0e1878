import { expect, test, type Page } from '@playwright/test';
import { field, openDataset, readRecord } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD, childrenOf, deleteFromPane, deleteOverHttp, findAndOpen, restoreOverHttp } from './support/curate.js';
import { everyShot } from './support/screens.js';

// Undo steps whose target changed under them: a record put back from the Trash panel (or by
// another window) is no longer its delete's to restore, a record deleted by another way takes
// its edits' undo with it. None of them may answer Ctrl+Z with the service's raw refusal (a
// uuid and a rights paragraph): the step leaves the list, or says plainly why it cannot be
// undone. A notice offering Undo goes as soon as its step is undone or dropped.

const messages = (page: Page) => page.getByRole('region', { name: 'Messages' });
const undoButton = (page: Page) => page.getByRole('group', { name: 'Undo and redo' }).getByRole('button', { name: 'Undo' });
/** No error notice at all, and nothing anywhere naming a record by its uuid. */
async function noRawError(page: Page, uuid: string) {
  await expect(messages(page).getByRole('alert')).toHaveCount(0);
  expect(await page.locator('body').innerText()).not.toContain(uuid);
}

const childUuids = async (i: number) => (await childrenOf(i)).map((c) => c.record_uuid).sort();

async function restoreFromTrashPanel(page: Page, entryText: RegExp, name: string) {
  const opener = page.getByRole('banner').getByRole('button', { name: 'Trash' });
  await opener.focus();
  await page.keyboard.press('Enter');
  const trash = page.getByRole('complementary', { name: 'Trash' });
  const entry = trash.getByRole('list', { name: 'Deleted records' }).getByRole('listitem').filter({ hasText: entryText });
  await entry.getByRole('button', { name: `Restore ${name}` }).focus();
  await page.keyboard.press('Enter');
  await expect(entry).toHaveCount(0);
  await page.keyboard.press('Escape');
  await expect(trash).toHaveCount(0);
  await expect(opener).toBeFocused();
}

test('a child record restored from the Trash panel: its notice goes, Ctrl+Z has nothing of it left to undo', async ({ page }) => {
  const I = 10;
  const kids = await childUuids(I);
  const first = (await childrenOf(I))[0]!;
  expect(first.record_name).toBe('split 1');

  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(I));
  const section = editor.getByRole('region', { name: 'Subsamples records' });
  await section.getByRole('button', { name: 'Remove Subsamples record split 1' }).focus();
  await page.keyboard.press('Enter');
  const dlg = page.getByRole('dialog', { name: /^Remove Subsamples record “split 1”\?$/ });
  await expect(dlg.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect.poll(() => childUuids(I)).toEqual(kids.filter((u) => u !== first.record_uuid));
  const notice = messages(page).getByText(/^Removed Subsamples record “split 1”/);
  await expect(notice).toBeVisible();
  await expect(undoButton(page)).toBeEnabled();

  await restoreFromTrashPanel(page, new RegExp(`Subsamples record in “${SYNTH_NAME(I)}”`), 'split 1');
  await expect.poll(() => childUuids(I)).toEqual(kids);
  // The step had nothing else to put back: off the list, and its notice with it.
  await expect(notice).toHaveCount(0);
  await expect(undoButton(page)).toBeDisabled();
  await page.keyboard.press('Control+z');
  await expect(messages(page).getByText('Nothing to undo')).toBeVisible();
  await noRawError(page, first.record_uuid);
  expect(await childUuids(I)).toEqual(kids);
});

test('a record restored from the Trash panel: Ctrl+Z from the list has nothing of it left to undo', async ({ page }) => {
  const i = 33;
  const notice = await deleteFromPane(page, i);
  await expect.poll(async () => (await readRecord(SYNTH_RECORD(i))).status).toBe(404);

  await restoreFromTrashPanel(page, new RegExp(SYNTH_NAME(i)), SYNTH_NAME(i));
  expect((await readRecord(SYNTH_RECORD(i))).status).toBe(200);
  await expect(notice).toHaveCount(0);
  await expect(undoButton(page)).toBeDisabled();
  await page.keyboard.press('Control+z');
  await expect(messages(page).getByText('Nothing to undo')).toBeVisible();
  await noRawError(page, SYNTH_RECORD(i));
});

test('a record put back by another window: its delete undoes as a no-op; its notice goes after Ctrl+Z', async ({ page }) => {
  const i = 34;
  const notice = await deleteFromPane(page, i);
  // Another window (or script) restores it over HTTP.
  expect(await restoreOverHttp(SYNTH_RECORD(i))).toBe(200);

  await page.getByRole('grid').focus();
  await page.keyboard.press('Control+z');
  await expect(messages(page).getByText('Undid: the delete of this record')).toBeVisible();
  // Undone (as a no-op): the notice offering Undo went with the step, before its own time was up;
  // its Undo would only have said "Nothing to undo".
  expect(await notice.count()).toBe(0);
  await noRawError(page, SYNTH_RECORD(i));
  expect((await readRecord(SYNTH_RECORD(i))).status).toBe(200);
});

test('an edit of a record deleted by another way: Ctrl+Z says plainly it cannot, and the step leaves the list', async ({ page }) => {
  const i = 35;
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(i));
  const input = field(editor, 'Medium Text field').getByRole('textbox');
  await input.focus();
  await page.keyboard.press('Control+a');
  // A value of this run only: a retry finds the first try's value restored with its record.
  await page.keyboard.type(`edited before the delete ${Date.now().toString(36)}`);
  await page.keyboard.press('Enter');
  await expect(editor.getByText('Saved')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('grid')).toBeFocused();
  await expect(undoButton(page)).toHaveAttribute('title', /Undo the change to Medium Text field/);

  expect(await deleteOverHttp([SYNTH_RECORD(i)])).toBe(200);

  await page.keyboard.press('Control+z');
  const alert = messages(page).getByRole('alert');
  await expect(alert).toContainText('Cannot undo the change to Medium Text field: what it changed is no longer there');
  await expect(alert).toContainText('It is off the undo list.');
  expect(await alert.innerText()).not.toContain(SYNTH_RECORD(i));
  await expect(undoButton(page)).toBeDisabled();
  await everyShot(page, 'undo-refused', () => expect(alert).toBeVisible());

  // Put back for the specs after this one.
  await restoreOverHttp(SYNTH_RECORD(i));
});
