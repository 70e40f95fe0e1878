import { expect, test } from '@playwright/test';
import { openDataset } from './support/app.js';
import { SYNTH_NAME, findAndOpen } from './support/curate.js';
import { expectFrameStill, wheelPastEnd } from './support/frame.js';

// A new user's walk: with a record open, the wheel scrolled the whole app off screen. A visually
// hidden label in the child-record table was placed by the page, 2-3 windows down, and the page
// grew to hold it. Whatever a pane holds, the frame stays one window and only panes scroll.

test.describe.configure({ timeout: 120_000 });

for (const size of [
  { width: 1024, height: 700 },
  { width: 1920, height: 1080 },
]) {
  test(`${size.width}×${size.height}: the page never scrolls, on any screen or past a pane's end`, async ({ page }) => {
    await page.setViewportSize(size);
    await openDataset(page, 'Synthetic Samples');
    await expectFrameStill(page, 'dataset');

    // A record with child records (every Synthetic record has Subsamples).
    const pane = await findAndOpen(page, SYNTH_NAME(20));
    await expect(pane.getByRole('table', { name: 'Subsamples records' })).toBeVisible();
    await expectFrameStill(page, 'record open');
    await wheelPastEnd(page, pane);
    await expectFrameStill(page, 'wheel past the record pane');

    // The whole list, with the record still open.
    await page.getByRole('searchbox', { name: 'Search records' }).fill('');
    await expect.poll(() => page.getByRole('grid').getByRole('row').count()).toBeGreaterThan(2);
    await wheelPastEnd(page, page.getByTestId('table-scroller'));
    await expectFrameStill(page, 'wheel past the grid');

    await page.getByRole('button', { name: 'Template', exact: true }).click();
    await expect(page.getByRole('rowheader', { name: /Tags field/ })).toBeVisible();
    await expectFrameStill(page, 'template');

    for (const name of ['Jobs', 'Users', 'Sync', 'Trash']) {
      await page
        .getByRole('banner')
        .getByRole('button', { name: new RegExp(`^${name}( \\(|$)`) })
        .click();
      await expect(page.getByRole('complementary', { name })).toBeVisible();
      await expectFrameStill(page, name);
    }
  });
}
