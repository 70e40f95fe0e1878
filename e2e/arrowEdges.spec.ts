import { expect, test, type Page } from '@playwright/test';
import { openDataset } from './support/app.js';
import { syntheticName as name, syntheticServe } from './support/syntheticServe.js';

// An arrow key leaves the table's scroll alone when the next row is already wholly in view
// (RecordTable: asking the virtualizer anyway forces a layout per keypress). The edges of that
// test are strict: a row half under the sticky header or half below the bottom edge is not in
// view, and after the key it must be. Both in a plain list and in a scaled one (?maxScrollPx),
// where the scroller's pixels stand for 5.4 of the list's.

const N = 3000;
const LIMIT = 20_000;
const ROW = 36;

test.describe.configure({ timeout: 180_000 });

const served = syntheticServe('edges', N);

const grid = (page: Page) => page.getByRole('grid');
const scroller = (page: Page) => page.getByTestId('table-scroller');
const pane = (page: Page) => page.locator('aside.editor');

/** Row `index`'s box against the visible band: below the sticky header, above the bottom edge. */
const rowBox = (page: Page, index: number) =>
  scroller(page).evaluate((el, rowIndex) => {
    const band = { top: el.querySelector('.row.head')!.getBoundingClientRect().bottom, bottom: el.getBoundingClientRect().bottom };
    const row = el.querySelector(`[role=row][aria-rowindex="${rowIndex}"]`);
    const b = row?.getBoundingClientRect();
    return { band, row: b ? { top: b.top, bottom: b.bottom } : null, scrollTop: el.scrollTop };
  }, index + 2);

/**
 * Scrolls until row `index` sits half across an edge of the band: half under the header
 * ('top') or half below the bottom edge ('bottom'). Each step scrolls by the row's distance
 * from there in scroller pixels (`factor` list pixels each) and waits for the redraw.
 */
async function straddle(page: Page, index: number, edge: 'top' | 'bottom', factor: number) {
  await expect
    .poll(
      async () => {
        const { band, row } = await rowBox(page, index);
        if (!row) return 'row not drawn';
        const off = edge === 'top' ? row.top - (band.top - ROW / 2) : row.bottom - (band.bottom + ROW / 2);
        if (Math.abs(off) <= 4) return 'placed';
        await scroller(page).evaluate((el, by) => {
          el.scrollTop += by;
        }, off / factor);
        return `off by ${off} px`;
      },
      { timeout: 15_000 },
    )
    .toBe('placed');
  const { band, row } = await rowBox(page, index);
  // Really across the edge: part of it hidden, part shown.
  if (edge === 'top') expect(row!.top < band.top && row!.bottom > band.top).toBe(true);
  else expect(row!.top < band.bottom && row!.bottom > band.bottom).toBe(true);
}

/** The pane shows row `index`, the grid's active row is it, and its whole box is in the band. */
async function expectActiveWhole(page: Page, index: number) {
  await expect(pane(page)).toHaveAttribute('aria-label', `Record ${name(index)}`);
  await expect(grid(page)).toHaveAttribute('aria-activedescendant', new RegExp(`-row-${index}$`));
  await expect
    .poll(async () => {
      const { band, row } = await rowBox(page, index);
      return row !== null && row.top >= band.top - 0.5 && row.bottom <= band.bottom + 0.5;
    })
    .toBe(true);
}

async function arrowsAtEdges(page: Page, url: string) {
  await page.setViewportSize({ width: 1400, height: 900 });
  await openDataset(page, 'Synthetic Samples', url);
  await expect(grid(page)).toHaveAttribute('aria-rowcount', String(N + 1));
  const factor = await scroller(page).evaluate((el, full) => (full - el.clientHeight) / (el.scrollHeight - el.clientHeight), N * ROW);

  // A row in the middle of the list, past the scroll limit when scaled.
  const first = Math.round(N / 2);
  await scroller(page).evaluate((el, top) => el.scrollTo({ top }), Math.round(((first - 5) * ROW) / factor));
  await expect(page.getByRole('row', { name: name(first + 3), exact: true })).toBeVisible();
  await straddle(page, first, 'top', factor);
  await page.getByRole('row', { name: name(first + 3), exact: true }).click();
  await expectActiveWhole(page, first + 3);
  await grid(page).focus();

  // The next row wholly in view: the key moves the active row and not the scroll.
  const still = (await rowBox(page, first)).scrollTop;
  await page.keyboard.press('ArrowUp');
  await expectActiveWhole(page, first + 2);
  await page.keyboard.press('ArrowUp');
  await expectActiveWhole(page, first + 1);
  expect((await rowBox(page, first)).scrollTop).toBe(still);

  // The next row half under the sticky header: ArrowUp brings it wholly below the header.
  await page.keyboard.press('ArrowUp');
  await expectActiveWhole(page, first);
  expect((await rowBox(page, first)).scrollTop).toBeLessThan(still);
  await straddle(page, first - 1, 'top', factor);
  await page.keyboard.press('ArrowUp');
  await expectActiveWhole(page, first - 1);

  // The next row half below the bottom edge: ArrowDown brings it wholly above that edge.
  await straddle(page, first, 'bottom', factor);
  await page.keyboard.press('ArrowDown');
  await expectActiveWhole(page, first);
  await straddle(page, first + 1, 'bottom', factor);
  await page.keyboard.press('ArrowDown');
  await expectActiveWhole(page, first + 1);
}

test('arrow keys: a next row half under the header or half below the edge ends wholly in view', async ({ page }) => {
  await arrowsAtEdges(page, served().url);
});

test('the same on a list past the scroll limit (scaled scroller)', async ({ page }) => {
  await arrowsAtEdges(page, `${served().url}/?maxScrollPx=${LIMIT}`);
  // Really scaled: the scroll area stays at the limit, far below the rows' own height.
  expect(await scroller(page).evaluate((el) => el.scrollHeight)).toBeLessThan(LIMIT + 200);
});
