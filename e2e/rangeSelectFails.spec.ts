import { expect, test } from '@playwright/test';
import { openDataset } from './support/app.js';

// A Shift-click selects its row at once and reads the range's uuids from the service. When that
// read fails, only the row the Shift-click added leaves the selection: a row Ctrl-clicked while
// the read was on its way stays (it was put back to the selection before the Shift-click). The
// real read is held at the network, then sent on with an offset the service refuses (400): the
// failure is the service's own answer. Read-only: no record is changed.

test('a Shift-click range that cannot be read: only its row leaves, a Ctrl-click made meanwhile stays', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const rows = page.getByRole('grid').getByRole('row');
  const [anchor, shifted, ctrled] = [rows.nth(1), rows.nth(4), rows.nth(6)];
  await anchor.click();
  await expect(anchor).toHaveAttribute('aria-selected', 'true');

  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let reads = 0;
  await page.route('**/local/datasets/*/record-uuids?*', async (route) => {
    reads++;
    await held;
    const url = new URL(route.request().url());
    url.searchParams.set('offset', '-1');
    await route.continue({ url: url.toString() });
  });
  await shifted.click({ modifiers: ['Shift'] });
  await expect.poll(() => reads).toBe(1);
  await expect(shifted).toHaveAttribute('aria-selected', 'true');
  await ctrled.click({ modifiers: ['ControlOrMeta'] });
  await expect(ctrled).toHaveAttribute('aria-selected', 'true');

  const failed = page.waitForResponse((r) => r.url().includes('/record-uuids?') && r.status() === 400);
  release();
  await failed;
  await expect(page.getByRole('region', { name: 'Messages' })).toContainText('Could not select the range');
  await expect(shifted).toHaveAttribute('aria-selected', 'false');
  await expect(ctrled).toHaveAttribute('aria-selected', 'true');
  await expect(anchor).toHaveAttribute('aria-selected', 'true');
});
