import { expect, test, type Page } from '@playwright/test';
import { openDataset } from './support/app.js';
import { SYNTH_NAME } from './support/curate.js';

// Deleting a block of rows: the cursor lands on the row after the block, as after a single
// delete, or on the row before it when the block ended the list; the focus stays in the list.
// Deletes records 16 and 18 (free in the shared seed) and puts them back with Ctrl+Z; 17 and 19
// are only left out by the searches, never changed.

const grid = (page: Page) => page.getByRole('grid');
/** The name of the row the cursor is on (the grid's active descendant). */
const activeName = (page: Page) =>
  grid(page).evaluate((g) => {
    const id = g.getAttribute('aria-activedescendant');
    return id ? (document.getElementById(id)?.getAttribute('aria-label') ?? null) : null;
  });

test('deleting a Shift range with the cursor on its last row: the cursor lands on the row after it', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  await page.getByRole('searchbox', { name: 'Search records' }).fill(`S-00001 -"${SYNTH_NAME(17)}"`);
  const row = (i: number) => grid(page).getByRole('row', { name: SYNTH_NAME(i), exact: true });
  const [first, last] = [row(16), row(18)];
  await expect(row(17)).toHaveCount(0);
  await expect(first).toBeVisible();
  await expect(last).toBeVisible();
  // The row after the block, whatever the view's order: the one whose place follows the last's.
  const at = Number(await last.getAttribute('aria-rowindex'));
  expect(Number(await first.getAttribute('aria-rowindex'))).toBe(at - 1);
  const after = grid(page).locator(`[role=row][aria-rowindex="${at + 1}"]`);
  await expect(after).toHaveAttribute('data-record', /./);
  const next = await after.getAttribute('aria-label');

  await first.click({ position: { x: 60, y: 10 } });
  await last.click({ position: { x: 60, y: 10 }, modifiers: ['Shift'] });
  const deleteSelected = page.getByRole('toolbar', { name: 'Record actions' }).getByRole('button', { name: 'Delete selected (2)' });
  await expect(deleteSelected).toBeEnabled();
  await expect.poll(() => activeName(page)).toBe(SYNTH_NAME(18));
  await grid(page).focus();
  await page.keyboard.press('Delete');
  await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(first).toHaveCount(0);
  await expect(last).toHaveCount(0);
  await expect.poll(() => activeName(page)).toBe(next);
  await expect(grid(page)).toBeFocused();
  // Put the two back (Ctrl+Z in the list), so the test can run again on the same service.
  await page.keyboard.press('Control+z');
  await expect(first).toBeVisible();
  await expect(last).toBeVisible();
});

test('deleting a block that ends the list: the cursor lands on the row before it, the focus stays in the list', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  // Records 16 and 18 are the view's last rows, whatever its order: the search leaves out 17 and
  // 19, and they sort after 10–15 by name, id and creation alike. Checked below by their places.
  await page.getByRole('searchbox', { name: 'Search records' }).fill(`S-00001 -"${SYNTH_NAME(17)}" -"${SYNTH_NAME(19)}"`);
  const row = (i: number) => grid(page).getByRole('row', { name: SYNTH_NAME(i), exact: true });
  const [first, last] = [row(16), row(18)];
  await expect(row(19)).toHaveCount(0);
  await expect(first).toBeVisible();
  await expect(last).toBeVisible();
  const rowCount = Number(await grid(page).getAttribute('aria-rowcount'));
  expect(Number(await last.getAttribute('aria-rowindex'))).toBe(rowCount);
  expect(Number(await first.getAttribute('aria-rowindex'))).toBe(rowCount - 1);
  const before = await grid(page)
    .locator(`[role=row][aria-rowindex="${rowCount - 2}"]`)
    .getAttribute('aria-label');

  // Shift-click up from 18 to 16: the cursor is on the block's first row.
  await last.click({ position: { x: 60, y: 10 } });
  await first.click({ position: { x: 60, y: 10 }, modifiers: ['Shift'] });
  await expect(page.getByRole('toolbar', { name: 'Record actions' }).getByRole('button', { name: 'Delete selected (2)' })).toBeEnabled();
  await expect.poll(() => activeName(page)).toBe(SYNTH_NAME(16));
  await grid(page).focus();
  await page.keyboard.press('Delete');
  await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(first).toHaveCount(0);
  await expect(last).toHaveCount(0);
  await expect.poll(() => activeName(page)).toBe(before);
  await expect(grid(page)).toBeFocused();
  await page.keyboard.press('Control+z');
  await expect(first).toBeVisible();
  await expect(last).toBeVisible();
});
