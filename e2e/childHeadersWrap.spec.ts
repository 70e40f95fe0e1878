import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { NO_FIXTURES, SCREENS, haveFixtures, openDataset, openRecord } from './support/app.js';
import { SYNTH_NAME, findAndOpen } from './support/curate.js';

// The new-user walk at 1024×700: every child-table header read "XR…". A header wraps at word
// breaks (at most 3 lines) instead, keeps its full name as its title, and the table still fits.

test.describe.configure({ timeout: 120_000 });

/** `clamped`: a name may need more than 3 lines in its column; its third line then ends in an ellipsis. */
async function headersWhole(page: Page, width: number, table: string, clamped = false) {
  await page.setViewportSize({ width, height: width === 1024 ? 700 : 1080 });
  const section = page.locator('aside.editor').getByRole('region', { name: `${table} records` });
  await section.scrollIntoViewIfNeeded();
  const wrap = section.locator('.child-table-wrap');
  const heads = await section.locator('thead th[title]').evaluateAll((ths) =>
    ths.map((th) => {
      const span = th.querySelector<HTMLElement>('.child-col-name')!;
      const line = parseFloat(getComputedStyle(span).lineHeight);
      return {
        title: th.getAttribute('title'),
        text: span.textContent,
        // Where the text's own boxes end: the cell clips what runs past it, so its sizes miss it.
        cutSideways: (() => {
          const r = document.createRange();
          r.selectNodeContents(span);
          const edge = th.getBoundingClientRect().right;
          return th.scrollWidth > th.clientWidth || [...r.getClientRects()].some((b) => b.right > edge + 0.5);
        })(),
        cutBelow: span.scrollHeight > span.clientHeight,
        lines: Math.round(span.clientHeight / line),
      };
    }),
  );
  expect(heads.length, 'the table has named columns').toBeGreaterThan(1);
  for (const h of heads) {
    expect(h.text, 'the header shows the field name').toBe(h.title);
    expect(h.cutSideways, `${h.title}: not cut sideways at ${width}`).toBe(false);
    if (!clamped) expect(h.cutBelow, `${h.title}: every line shown at ${width}`).toBe(false);
    expect(h.lines, `${h.title}: at most 3 lines at ${width}`).toBeLessThanOrEqual(3);
  }
  const [scroll, client] = await wrap.evaluate((e) => [e.scrollWidth, e.clientWidth]);
  expect(scroll, 'the child table is no wider than its place in the pane').toBeLessThanOrEqual(client);
  await section.screenshot({ path: path.join(SCREENS, `child-headers-${table}-${width}.png`) });
}

test('child table headers wrap whole at 1024 and 1920, the table still fits the pane', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await openDataset(page, 'Synthetic Samples');
  await findAndOpen(page, SYNTH_NAME(20));
  await headersWhole(page, 1024, 'Subsamples');
  await headersWhole(page, 1920, 'Subsamples');
});

test('CheMin: long field names ("XRD Analysis Description") wrap inside their headers, none clipped', async ({ page }) => {
  test.skip(!haveFixtures(), NO_FIXTURES);
  await page.setViewportSize({ width: 1024, height: 700 });
  await openDataset(page, 'CheMin');
  await openRecord(page, 'Rocknest (5th scoop)');
  for (const width of [1024, 1920]) {
    await headersWhole(page, width, 'XRD-RDA', true);
    await headersWhole(page, width, 'Mineral Abundances', true);
  }
});
