import { expect, test } from '@playwright/test';
import { openDataset, openRecord } from './support/app.js';
import { SYNTH_NAME } from './support/curate.js';

// Ctrl+F goes to the record search from anywhere on the dataset screen but a dialog, and ↓ goes
// on to the list: a keyboard user's way to a record without tabbing through the sidebar and the
// head. Read-only: it only searches.

test('Ctrl+F goes to the search box from the list and from a field; not from a dialog', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const search = page.getByRole('searchbox', { name: 'Search records' });
  const grid = page.getByRole('grid');
  await grid.focus();
  await page.keyboard.press('Control+f');
  await expect(search).toBeFocused();
  await page.keyboard.type(SYNTH_NAME(5));
  await expect(grid.getByRole('row')).toHaveCount(2);
  await page.keyboard.press('ArrowDown');
  await expect(grid).toBeFocused();

  // From a field of the open record: the search text is selected, so typing replaces it.
  const editor = await openRecord(page, SYNTH_NAME(5));
  await editor.getByRole('textbox').first().focus();
  await page.keyboard.press('Control+f');
  await expect(search).toBeFocused();
  expect(await search.evaluate((e: HTMLInputElement) => [e.selectionStart, e.selectionEnd])).toEqual([0, SYNTH_NAME(5).length]);

  // A dialog keeps its keys: the focus stays in it (Delete asks; Escape cancels, nothing goes).
  await page.keyboard.press('Escape');
  await expect(search).toHaveValue('');
  await grid.focus();
  await page.keyboard.press('Delete');
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Control+f');
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
});
