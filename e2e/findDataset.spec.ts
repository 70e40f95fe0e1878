import { expect, test, type Page } from '@playwright/test';
import { baseUrl } from './support/app.js';

// A new user's walk: typing in "Find a dataset…" and pressing Enter (or ArrowDown) did nothing;
// only Tab reached the links. Keyboard only here: no click anywhere.

const nav = (page: Page) => page.getByRole('navigation', { name: 'Datasets' });
const box = (page: Page) => nav(page).getByRole('searchbox', { name: 'Find a dataset' });
const heading = (page: Page) => page.getByRole('heading', { level: 1 });

/** Tab from the top of the page to the box (bounded: it is among the first stops). */
async function tabToBox(page: Page) {
  for (let i = 0; i < 30 && !(await box(page).evaluate((e) => e === document.activeElement)); i++) await page.keyboard.press('Tab');
  await expect(box(page)).toBeFocused();
}

test('Enter in "Find a dataset…" opens the first match', async ({ page }) => {
  await page.goto(baseUrl());
  await tabToBox(page);
  await page.keyboard.type('synthetic');
  await page.keyboard.press('Enter');
  await expect(heading(page)).toHaveText('Synthetic Samples');
});

test('ArrowDown moves from the box into the list, the arrows between datasets, Enter opens one', async ({ page }) => {
  await page.goto(baseUrl());
  await tabToBox(page);
  await page.keyboard.type('s');
  const links = nav(page).locator('a[data-dataset]');
  await expect.poll(() => links.count()).toBeGreaterThan(1);
  const names = await links.locator('.ds-name').evaluateAll((es) => es.map((e) => e.firstChild!.textContent!));

  await page.keyboard.press('ArrowDown');
  await expect(links.nth(0)).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(links.nth(1)).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await expect(box(page), 'ArrowUp from the first goes back to the box').toBeFocused();
  await expect(box(page)).toHaveValue('s');

  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(heading(page)).toHaveText(names[1]!);
});

test('Enter with no match opens nothing', async ({ page }) => {
  await page.goto(baseUrl());
  await tabToBox(page);
  await page.keyboard.type('no dataset is called this');
  await expect(nav(page).getByText('No dataset matches.')).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(box(page)).toBeFocused();
  await expect(page.getByRole('heading', { level: 1, name: 'Synthetic Samples' })).toHaveCount(0);
});
