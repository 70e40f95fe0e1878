import { expect, test } from '@playwright/test';
import { field, openDataset, readRecord } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD, findAndOpen } from './support/curate.js';
import { blockingViolations } from './support/screens.js';

// Issue #15 item 8: child records as a compact table inside the record (add, open, remove after
// an in-app confirmation), and child datasets under their parent in the sidebar.

const childCount = async (i: number) =>
  ((await readRecord(SYNTH_RECORD(i))).body as unknown as { records?: unknown[] }).records?.length ?? 0;

test('child records: a compact table; add opens the new one, open shows its fields, remove asks first', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(20));
  const section = editor.getByRole('region', { name: 'Subsamples records' });
  const table = section.getByRole('table', { name: 'Subsamples records' });
  const before = await childCount(20);
  expect(before).toBeGreaterThan(0);
  await expect(table.getByRole('columnheader')).toContainText(['#', 'Split', 'Mass (g)']);
  // A header row and one row per child record (when more than one, all start closed).
  if (before > 1) await expect(table.locator('tbody > tr')).toHaveCount(before);
  await expect(table.getByRole('cell', { name: 'split 1', exact: true })).toBeVisible();

  // Add: the new child record opens, ready to type.
  await section.getByRole('button', { name: 'Add Subsamples record' }).click();
  await expect.poll(() => childCount(20)).toBe(before + 1);
  const opened = section.getByRole('group', { name: /^Subsamples record / });
  await expect(opened).toHaveCount(before === 1 ? 2 : 1);
  const split = field(opened.last(), 'Split').getByRole('textbox');
  await split.fill('added in e2e');
  await split.press('Enter');
  await expect(table.getByRole('cell', { name: 'added in e2e', exact: true })).toBeVisible();

  // Open / close by keyboard.
  const openFirst = section.getByRole('button', { name: /^(Open|Close) Subsamples record split 1$/ });
  await openFirst.focus();
  await page.keyboard.press('Enter');
  await expect(openFirst).toHaveAttribute('aria-expanded', before === 1 ? 'false' : 'true');
  expect(await blockingViolations(page)).toEqual([]);

  // Remove asks in the app, Cancel keeps it, Remove takes it away.
  await section.getByRole('button', { name: 'Remove Subsamples record added in e2e' }).click();
  const dlg = page.getByRole('dialog', { name: /^Remove Subsamples record “added in e2e”\?$/ });
  await expect(dlg).toBeVisible();
  // Kept in the record trash and on the undo list (childUndo.spec.ts): the dialog says so.
  await expect(dlg).toContainText('Its values, child records and files go with it');
  await expect(dlg).toContainText('Undo (Ctrl+Z) brings it back');
  await expect(dlg).not.toContainText('permanent');
  await dlg.getByRole('button', { name: 'Cancel' }).click();
  expect(await childCount(20)).toBe(before + 1);
  await section.getByRole('button', { name: 'Remove Subsamples record added in e2e' }).click();
  await dlg.getByRole('button', { name: 'Remove' }).click();
  await expect.poll(() => childCount(20)).toBe(before);
  await expect(table.getByRole('cell', { name: 'added in e2e', exact: true })).toHaveCount(0);
});

test('child datasets are listed under their parent in the sidebar and open in its template', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const nav = page.getByRole('navigation', { name: 'Datasets' });
  const children = nav.getByRole('list', { name: 'Child datasets of Synthetic Samples' });
  await children.getByRole('link', { name: 'Subsamples' }).click();
  await expect(page.getByRole('button', { name: 'Template' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator(`summary:has-text("Subsamples")`)).toBeFocused();
});
