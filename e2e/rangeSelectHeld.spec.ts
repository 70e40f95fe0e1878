import { expect, test, type Page } from '@playwright/test';
import { openDataset } from './support/app.js';
import { SYNTH_NAME } from './support/curate.js';

// A Shift-click selects its row at once and reads the range's uuids from the service; rows
// Ctrl-clicked while that read is on its way keep what those clicks did, whether the read lands
// or fails. The real read is held at the network, then sent on (or sent on with an offset the
// service refuses, 400: the failure is the service's own answer). Select all (Ctrl+A) is read
// and kept the same way. Read-only: no record is changed.

/**
 * Row 1 clicked, then row 4 Shift-clicked with the range read held at the network. `release`
 * sends the read on (refused when `refuse`) and waits for the service's answer.
 */
async function holdRangeRead(page: Page, { refuse }: { refuse: boolean }) {
  await openDataset(page, 'Synthetic Samples');
  const rows = page.getByRole('grid').getByRole('row');
  const [anchor, shifted] = [rows.nth(1), rows.nth(4)];
  // Loaded rows only: a placeholder row (no record yet) takes a click without selecting anything.
  for (let i = 1; i <= 6; i++) await expect(rows.nth(i)).toHaveAttribute('data-record', /./);
  await anchor.click();
  await expect(anchor).toHaveAttribute('aria-selected', 'true');

  let send!: () => void;
  const held = new Promise<void>((resolve) => (send = resolve));
  let reads = 0;
  await page.route('**/local/datasets/*/record-uuids?*', async (route) => {
    reads++;
    await held;
    const url = new URL(route.request().url());
    if (refuse) url.searchParams.set('offset', '-1');
    await route.continue({ url: url.toString() });
  });
  await shifted.click({ modifiers: ['Shift'] });
  await expect.poll(() => reads).toBe(1);
  await expect(shifted).toHaveAttribute('aria-selected', 'true');
  const release = async () => {
    const answered = page.waitForResponse((r) => r.url().includes('/record-uuids?') && r.status() === (refuse ? 400 : 200));
    send();
    await answered;
  };
  return { rows, anchor, shifted, release };
}

test('a Ctrl-click made while a Shift-click range is read is kept on top of the range', async ({ page }) => {
  const { rows, anchor, shifted, release } = await holdRangeRead(page, { refuse: false });
  const [inside, outside] = [rows.nth(2), rows.nth(6)];
  // Twice on a row inside the range: selected, then unselected again (the last click wins).
  await inside.click({ modifiers: ['ControlOrMeta'] });
  await expect(inside).toHaveAttribute('aria-selected', 'true');
  await inside.click({ modifiers: ['ControlOrMeta'] });
  await expect(inside).toHaveAttribute('aria-selected', 'false');
  await outside.click({ modifiers: ['ControlOrMeta'] });
  await expect(outside).toHaveAttribute('aria-selected', 'true');

  await release();
  // The range's other rows arrive with the read: row 3 (never clicked) is the sign it landed.
  await expect(rows.nth(3)).toHaveAttribute('aria-selected', 'true');
  await expect(anchor).toHaveAttribute('aria-selected', 'true');
  await expect(shifted).toHaveAttribute('aria-selected', 'true');
  await expect(outside).toHaveAttribute('aria-selected', 'true');
  await expect(inside).toHaveAttribute('aria-selected', 'false');
  await expect(page.getByRole('button', { name: 'Delete selected (4)' })).toBeVisible();
});

test('a Shift-click range that cannot be read: only its row leaves, a Ctrl-click made meanwhile stays', async ({ page }) => {
  const { rows, anchor, shifted, release } = await holdRangeRead(page, { refuse: true });
  const ctrled = rows.nth(6);
  await ctrled.click({ modifiers: ['ControlOrMeta'] });
  await expect(ctrled).toHaveAttribute('aria-selected', 'true');

  await release();
  await expect(page.getByRole('region', { name: 'Messages' })).toContainText('Could not select the range');
  await expect(shifted).toHaveAttribute('aria-selected', 'false');
  await expect(ctrled).toHaveAttribute('aria-selected', 'true');
  await expect(anchor).toHaveAttribute('aria-selected', 'true');
});

/**
 * The first row clicked, then Ctrl+A with the read of the view's uuids held at the network.
 * `row(i)`: the i-th row as first shown, found by its record (not by its place among the
 * rendered rows). `release` sends the read on and waits for the service's answer.
 */
async function holdSelectAll(page: Page) {
  await openDataset(page, 'Synthetic Samples');
  const grid = page.getByRole('grid');
  const shown = grid.locator('[role=row][data-record]');
  // Loaded rows (a placeholder row has no record and takes no click).
  await expect(shown.nth(3)).toBeVisible();
  const uuids = await shown.evaluateAll((rs) => rs.slice(0, 4).map((r) => r.getAttribute('data-record')!));
  const row = (i: number) => grid.locator(`[role=row][data-record="${uuids[i]}"]`);
  await row(0).click();
  await expect(row(0)).toHaveAttribute('aria-selected', 'true');
  const total = await grid.getAttribute('aria-rowcount').then((n) => Number(n) - 1);

  let send!: () => void;
  const held = new Promise<void>((resolve) => (send = resolve));
  // Only Select all's read is held: reads asked after it (a search typed meanwhile) go through.
  let heldUrl: string | undefined;
  await page.route('**/local/datasets/*/record-uuids?*', async (route) => {
    if (heldUrl === undefined) {
      heldUrl = route.request().url();
      await held;
    }
    await route.continue();
  });
  await expect(grid).toBeFocused();
  await page.keyboard.press('ControlOrMeta+a');
  await expect.poll(() => heldUrl).toBeDefined();
  const release = async () => {
    const answered = page.waitForResponse((r) => r.url() === heldUrl && r.status() === 200);
    send();
    await answered;
    // The page has read the answer and rendered what it made of it.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  };
  return { row, total, release };
}

const headerBox = (page: Page) => page.getByRole('checkbox', { name: 'Select all records' });

test('a Ctrl-click made while Select all is read keeps its row out of the selection', async ({ page }) => {
  const { row, total, release } = await holdSelectAll(page);
  await row(0).click({ modifiers: ['ControlOrMeta'] });
  await expect(row(0)).toHaveAttribute('aria-selected', 'false');

  await release();
  // The others arrive with the read: a row never clicked is the sign it landed.
  await expect(row(1)).toHaveAttribute('aria-selected', 'true');
  await expect(row(0)).toHaveAttribute('aria-selected', 'false');
  await expect(page.getByRole('button', { name: `Delete selected (${(total - 1).toLocaleString('en-US')})` })).toBeVisible();
});

test('a plain click made while Select all is read wins: its answer selects nothing more', async ({ page }) => {
  const { row, release } = await holdSelectAll(page);
  // The header box shows Ctrl+A at once, before its uuids arrive...
  await expect(headerBox(page)).toBeChecked();
  await row(2).click();
  await expect(row(2)).toHaveAttribute('aria-selected', 'true');
  // ...and no longer once the click has cancelled it, without waiting for the read.
  await expect(headerBox(page)).not.toBeChecked();

  await release();
  await expect(headerBox(page)).not.toBeChecked();
  await expect(page.getByRole('button', { name: 'Delete selected (1)' })).toBeVisible();
  await expect(row(0)).toHaveAttribute('aria-selected', 'false');
  await expect(row(2)).toHaveAttribute('aria-selected', 'true');
});

test('Escape while Select all is read clears the header box at once; the answer selects nothing', async ({ page }) => {
  const { row, release } = await holdSelectAll(page);
  await expect(headerBox(page)).toBeChecked();
  // The first Escape closes the pane of the row clicked; the second clears the selection.
  await page.keyboard.press('Escape');
  await expect(page.getByRole('complementary', { name: /^Record / })).toHaveCount(0);
  await expect(page.getByRole('grid')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(row(0)).toHaveAttribute('aria-selected', 'false');
  await expect(headerBox(page)).not.toBeChecked();

  await release();
  await expect(headerBox(page)).not.toBeChecked();
  await expect(page.getByRole('button', { name: /^Delete selected/ })).toHaveText('Delete selected');
  await expect(row(1)).toHaveAttribute('aria-selected', 'false');
});

test('a search typed while Select all is read: no record of the old view is selected when it lands', async ({ page }) => {
  const { release } = await holdSelectAll(page);
  const name = SYNTH_NAME(3);
  await page.getByRole('searchbox', { name: 'Search records' }).fill(`"${name}"`);
  const grid = page.getByRole('grid');
  await expect(grid.getByRole('row')).toHaveCount(2);
  await expect(grid.getByRole('row', { name, exact: true })).toBeVisible();

  await release();
  await expect(headerBox(page)).not.toBeChecked();
  await expect(page.getByRole('button', { name: /^Delete selected/ })).toHaveText('Delete selected');
  await expect(grid.getByRole('row', { name, exact: true })).toHaveAttribute('aria-selected', 'false');
});
