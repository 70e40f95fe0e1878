import { expect, test } from '@playwright/test';
import { openDataset } from './support/app.js';

// A Shift-click reads its range's uuids from the service; once read, the range replaces the
// selection. Rows Ctrl-clicked while the read was on its way keep what those clicks did (the
// person's last action wins): one outside the range stays selected, one inside it that was
// unselected stays unselected. The real read is held at the network, then sent on unchanged.
// Read-only: no record is changed.

test('a Ctrl-click made while a Shift-click range is read is kept on top of the range', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const rows = page.getByRole('grid').getByRole('row');
  const [anchor, inside, shifted, outside] = [rows.nth(1), rows.nth(2), rows.nth(4), rows.nth(6)];
  await anchor.click();
  await expect(anchor).toHaveAttribute('aria-selected', 'true');

  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let reads = 0;
  await page.route('**/local/datasets/*/record-uuids?*', async (route) => {
    reads++;
    await held;
    await route.continue();
  });
  await shifted.click({ modifiers: ['Shift'] });
  await expect.poll(() => reads).toBe(1);
  await expect(shifted).toHaveAttribute('aria-selected', 'true');
  // Twice on a row inside the range: selected, then unselected again (the last click wins).
  await inside.click({ modifiers: ['ControlOrMeta'] });
  await expect(inside).toHaveAttribute('aria-selected', 'true');
  await inside.click({ modifiers: ['ControlOrMeta'] });
  await expect(inside).toHaveAttribute('aria-selected', 'false');
  await outside.click({ modifiers: ['ControlOrMeta'] });
  await expect(outside).toHaveAttribute('aria-selected', 'true');

  const read = page.waitForResponse((r) => r.url().includes('/record-uuids?') && r.status() === 200);
  release();
  await read;
  // The range's other rows arrive with the read: row 3 (never clicked) is the sign it landed.
  await expect(rows.nth(3)).toHaveAttribute('aria-selected', 'true');
  await expect(anchor).toHaveAttribute('aria-selected', 'true');
  await expect(shifted).toHaveAttribute('aria-selected', 'true');
  await expect(outside).toHaveAttribute('aria-selected', 'true');
  await expect(inside).toHaveAttribute('aria-selected', 'false');
  await expect(page.getByRole('button', { name: 'Delete selected (4)' })).toBeVisible();
});
