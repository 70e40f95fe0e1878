import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { SCREENS, openDataset } from './support/app.js';
import { SYNTH_NAME, findAndOpen } from './support/curate.js';

// The new-user walk at 1024×700: every child-table header read "XR…". A header wraps at word
// breaks (at most 3 lines) instead, keeps its full name as its title, and the table still fits.

test.describe.configure({ timeout: 120_000 });

async function headersWhole(page: Page, width: number) {
  await page.setViewportSize({ width, height: width === 1024 ? 700 : 1080 });
  const section = page.locator('aside.editor').getByRole('region', { name: 'Subsamples records' });
  await section.scrollIntoViewIfNeeded();
  const wrap = section.locator('.child-table-wrap');
  const heads = await section.locator('thead th[title]').evaluateAll((ths) =>
    ths.map((th) => {
      const span = th.querySelector<HTMLElement>('.child-col-name')!;
      const line = parseFloat(getComputedStyle(span).lineHeight);
      return {
        title: th.getAttribute('title'),
        text: span.textContent,
        // The cell, not the span: an inline span measures 0 wide, and the cell is what clips.
        cutSideways: th.scrollWidth > th.clientWidth || span.scrollWidth > span.clientWidth,
        cutBelow: span.scrollHeight > span.clientHeight,
        lines: Math.round(span.clientHeight / line),
      };
    }),
  );
  expect(heads.length, 'the table has named columns').toBeGreaterThan(1);
  for (const h of heads) {
    expect(h.text, 'the header shows the field name').toBe(h.title);
    expect(h.cutSideways, `${h.title}: not cut sideways at ${width}`).toBe(false);
    expect(h.cutBelow, `${h.title}: every line shown at ${width}`).toBe(false);
    expect(h.lines, `${h.title}: at most 3 lines at ${width}`).toBeLessThanOrEqual(3);
  }
  const [scroll, client] = await wrap.evaluate((e) => [e.scrollWidth, e.clientWidth]);
  expect(scroll, 'the child table is no wider than its place in the pane').toBeLessThanOrEqual(client);
  await section.screenshot({ path: path.join(SCREENS, `child-headers-${width}.png`) });
}

test('child table headers wrap whole at 1024 and 1920, the table still fits the pane', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await openDataset(page, 'Synthetic Samples');
  await findAndOpen(page, SYNTH_NAME(20));
  await headersWhole(page, 1024);
  await headersWhole(page, 1920);
});
