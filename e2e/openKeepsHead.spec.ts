import { expect, test, type Page } from '@playwright/test';
import { openDataset, screenshot } from './support/app.js';
import { SYNTH_NAME, findAndOpen } from './support/curate.js';

// Opening a record puts the focus in its first Short Text field; Chromium's own focus scroll put
// that field in the middle of the pane and took the pane's header (which record is open, ‹ ›,
// Close) out of view. Both must be seen when they fit: at 1024×700 and at 1920×1080, by
// double-click and by Enter. Read-only: no record is changed.

const SIZES = [
  { width: 1024, height: 700 },
  { width: 1920, height: 1080 },
];

async function bothSeen(page: Page, name: string) {
  const pane = page.getByRole('complementary', { name: `Record ${name}` });
  const focused = pane.locator(':focus');
  await expect(focused).toHaveCount(1);
  await expect(focused).toHaveAttribute('type', /^(text|search|)$/);
  await expect(pane.getByRole('heading', { level: 2, name })).toBeInViewport({ ratio: 1 });
  await expect(pane.getByRole('button', { name: 'Close record' })).toBeInViewport({ ratio: 1 });
  await expect(focused).toBeInViewport({ ratio: 1 });
  return pane;
}

for (const size of SIZES) {
  test(`opening a record at ${size.width}×${size.height}: the header and the focused field are both in view`, async ({ page }) => {
    await page.setViewportSize(size);
    await openDataset(page, 'Synthetic Samples');
    const byClick = SYNTH_NAME(3);
    await findAndOpen(page, byClick);
    await bothSeen(page, byClick);
    await screenshot(page, `open-keeps-head-${size.width}x${size.height}`);

    // From the keyboard: Escape back to the list, another row, Enter.
    const byKey = SYNTH_NAME(5);
    await page.keyboard.press('Escape');
    const search = page.getByRole('searchbox', { name: 'Search records' });
    await search.fill(byKey);
    await expect(page.getByRole('grid').getByRole('row')).toHaveCount(2);
    const row = page.getByRole('grid').getByRole('row', { name: byKey, exact: true });
    await row.click();
    await page.keyboard.press('Enter');
    await bothSeen(page, byKey);
  });
}
