import { expect, test, type Page } from '@playwright/test';
import { openDataset } from './support/app.js';
import { syntheticName as name, syntheticServe } from './support/syntheticServe.js';

// The scaled scroller (renderer/src/lib/scaledScroller.ts) in a real browser. Past Chromium's
// ~33.5M px box height the table keeps a shorter scroll area and maps its pixels to the list's;
// a million records would be needed to get there, so the page's address lowers the limit
// (?maxScrollPx=LIMIT) and 3,000 synthetic records (108,000 px of rows) are scaled 5.4×.
// Keys, clicks and opening a record must land on the right rows, with their data, everywhere.

const N = 3000;
const LIMIT = 20_000;
const ROW = 36;

test.describe.configure({ timeout: 180_000 });

const served = syntheticServe('scaled', N);

const grid = (page: Page) => page.getByRole('grid');
const scroller = (page: Page) => page.getByTestId('table-scroller');
const pane = (page: Page) => page.locator('aside.editor');

/**
 * The rows inside the scroller's visible box, as [list index, name] ("…" while loading), from
 * what the page draws: aria-rowindex is the row's place in the list (header = 1).
 */
const visibleRows = (page: Page) =>
  scroller(page).evaluate((el) => {
    const box = el.getBoundingClientRect();
    const head = el.querySelector('.row.head')!.getBoundingClientRect().bottom;
    return [...el.querySelectorAll<HTMLElement>('[role=row]:not(.head)')]
      .filter((r) => {
        const b = r.getBoundingClientRect();
        return b.top >= head - 1 && b.bottom <= box.bottom + 1;
      })
      .map((r) => [Number(r.getAttribute('aria-rowindex')) - 2, r.getAttribute('aria-label') ?? '…'] as const);
  });

/** Every row shown is the list's row at its place, loaded, and `index` is among them. */
async function expectShown(page: Page, index: number) {
  await expect
    .poll(async () => {
      const rows = await visibleRows(page);
      const wrong = rows.filter(([i, label]) => label !== name(i));
      return { includes: rows.some(([i]) => i === index), wrong, enough: rows.length >= 5 };
    })
    .toEqual({ includes: true, wrong: [], enough: true });
  await expect(grid(page).locator(`[aria-rowindex="${index + 2}"]`)).toBeInViewport();
}

/** The active row (shown in the pane) is `index`, on screen with its data. */
async function expectActive(page: Page, index: number) {
  await expect(pane(page)).toHaveAttribute('aria-label', `Record ${name(index)}`);
  await expect(grid(page)).toHaveAttribute('aria-activedescendant', /-row-\d+$/);
  const active = await grid(page).getAttribute('aria-activedescendant');
  expect(active!.endsWith(`-row-${index}`)).toBe(true);
  await expectShown(page, index);
}

test('a list past the scroll limit: End, Home, PageDown, arrows, Shift-click and opening a record land on the right rows', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await openDataset(page, 'Synthetic Samples', `${served().url}/?maxScrollPx=${LIMIT}`);
  await expect(grid(page)).toHaveAttribute('aria-rowcount', String(N + 1));
  await expectShown(page, 0);
  // Really scaled: the scroll area stays at the limit (the rows alone would be 108,000 px).
  const height = await scroller(page).evaluate((el) => el.scrollHeight);
  expect(height).toBeLessThan(LIMIT + 200);
  expect(N * ROW).toBeGreaterThan(5 * height);

  await grid(page).focus();
  await page.keyboard.press('End');
  await expectActive(page, N - 1);
  // The scroller is at its very end, and the last row is the last thing above the bottom edge.
  expect(await scroller(page).evaluate((el) => Math.abs(el.scrollTop + el.clientHeight - el.scrollHeight) <= 1)).toBe(true);
  await page.keyboard.press('ArrowUp');
  await expectActive(page, N - 2);
  await page.keyboard.press('ArrowDown');
  await expectActive(page, N - 1);

  await page.keyboard.press('Home');
  await expectActive(page, 0);
  expect(await scroller(page).evaluate((el) => el.scrollTop)).toBe(0);
  await page.keyboard.press('PageDown');
  await expectActive(page, 20);

  // The middle of the list, by moving the real scroll bar: the rows there are the ones drawn.
  await scroller(page).evaluate((el) => el.scrollTo({ top: Math.round((el.scrollHeight - el.clientHeight) / 2) }));
  await expect
    .poll(async () => {
      const rows = await visibleRows(page);
      return rows.length >= 5 && rows.every(([i, label]) => label === name(i));
    })
    .toBe(true);
  const middle = await visibleRows(page);
  const first = middle[1]![0];
  // Half-way down the scroll area is half-way down the list (within a screenful).
  expect(Math.abs(first - N / 2)).toBeLessThan(40);
  expect(first * ROW).toBeGreaterThan(LIMIT); // a record past the limit, in list pixels

  // Click one, Shift-click four below: five selected, the pane on the clicked one.
  await page.getByRole('row', { name: name(first), exact: true }).click();
  await expectActive(page, first);
  await page.getByRole('row', { name: name(first + 4), exact: true }).click({ modifiers: ['Shift'] });
  await expect(page.getByRole('button', { name: 'Delete selected (5)' })).toBeVisible();
  await expect(grid(page).locator('[role=row][aria-selected=true]')).toHaveText(
    Array.from({ length: 5 }, (_, k) => new RegExp(name(first + k))),
  );
  await expectShown(page, first + 4);

  // Opening a record past the limit: the pane shows it, its row stays in view; arrows go on from it.
  await page.getByRole('row', { name: name(first + 2), exact: true }).dblclick();
  await expect(pane(page)).toHaveAttribute('aria-label', `Record ${name(first + 2)}`);
  await expectShown(page, first + 2);
  await grid(page).focus();
  await page.keyboard.press('ArrowDown');
  await expectActive(page, first + 3);
  await page.keyboard.press('PageDown');
  await expectActive(page, first + 23);
});
