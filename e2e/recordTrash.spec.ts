import { expect, test } from '@playwright/test';
import { openDataset, readRecord } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD } from './support/curate.js';
import { everyShot } from './support/screens.js';

// A deleted record stays restorable for 30 days, but the undo history dies with the page: after
// a reload the Trash panel is the way back.

test('a record deleted before a reload comes back from the Trash panel', async ({ page }) => {
  const i = 14;
  const before = await readRecord(SYNTH_RECORD(i));
  expect(before.status).toBe(200);

  await openDataset(page, 'Synthetic Samples');
  await page.getByRole('searchbox', { name: 'Search records' }).fill(SYNTH_NAME(i));
  await expect(page.getByTestId('match-count')).toHaveText(/^1 of [\d,]+ match$/);
  const row = page.getByRole('row', { name: SYNTH_NAME(i), exact: true });
  await row.getByRole('checkbox').check();
  await page.getByRole('button', { name: /Delete selected \(1\)/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(row).toHaveCount(0);
  expect((await readRecord(SYNTH_RECORD(i))).status).toBe(404);

  // The undo history is gone after this.
  await page.reload();
  await page.getByRole('searchbox', { name: 'Search records' }).fill(SYNTH_NAME(i));
  await expect(page.getByTestId('match-count')).toHaveText(/^0 of [\d,]+ match/);

  await page.getByRole('button', { name: 'Trash' }).click();
  const trash = page.getByRole('complementary', { name: 'Trash' });
  const records = trash.getByRole('list', { name: 'Deleted records' });
  const entry = records.getByRole('listitem').filter({ hasText: SYNTH_NAME(i) });
  await expect(entry).toContainText('Synthetic Samples');
  await everyShot(page, 'record-trash', async () => {
    await expect(entry).toBeVisible();
  });
  // From the keyboard: the restored entry's button goes, the focus stays in the panel.
  await entry.getByRole('button', { name: `Restore ${SYNTH_NAME(i)}` }).focus();
  await page.keyboard.press('Enter');
  await expect(entry).toHaveCount(0);
  await expect(trash.getByRole('heading', { name: 'Records' })).toBeFocused();
  // The table asks again (its query is invalidated): the record is back where the search finds it.
  await expect(row).toBeVisible();
  expect((await readRecord(SYNTH_RECORD(i))).body).toEqual(before.body);
});
