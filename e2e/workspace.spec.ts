import { expect, test, type Page } from '@playwright/test';
import { baseUrl, field, openDataset } from './support/app.js';
import { SYNTH_NAME, findAndOpen } from './support/curate.js';
import { everyShot } from './support/screens.js';

// Issue #15: the list and the record side by side at any size, selection driving the pane,
// keyboard throughout, in-app dialogs, and every screen free of blocking accessibility faults.

const grid = (page: Page) => page.getByRole('grid');
/** The list's frame around the grid (its border included): what the 360 px minimum is of. */
const listFrame = (page: Page) => grid(page).locator('xpath=..');
const pane = (page: Page) => page.locator('aside.editor');
const rows = (page: Page) => grid(page).locator('[data-record]');

test.describe('every screen at 1024×700, 1400×900 and 1920×1080, light and dark: screenshots, no serious axe violation', () => {
  // Axe takes seconds on a full grid, far more on a loaded machine.
  test.describe.configure({ timeout: 180_000 });

  test('choose a dataset', async ({ page }) => {
    await page.goto(baseUrl());
    await expect(page.getByRole('heading', { name: 'Choose a dataset' })).toBeVisible();
    await everyShot(page, 'a-choose-dataset');
  });

  test('records list', async ({ page }) => {
    await openDataset(page, 'Synthetic Samples');
    await everyShot(page, 'b-records');
  });

  test('record open beside the list', async ({ page }) => {
    await openDataset(page, 'Synthetic Samples');
    await findAndOpen(page, SYNTH_NAME(2));
    await everyShot(page, 'c-record-open', async () => {
      await expect(pane(page)).toBeVisible();
    });
  });

  test('confirmation dialog', async ({ page }) => {
    await openDataset(page, 'Synthetic Samples');
    await rows(page).nth(1).click();
    await rows(page)
      .nth(3)
      .click({ modifiers: ['Shift'] });
    const names = await Promise.all([1, 2, 3].map((i) => rows(page).nth(i).getAttribute('aria-label')));
    await page.getByRole('button', { name: 'Delete selected (3)' }).click();
    // The dialog names what it deletes, the row clicked to read included.
    await expect(page.getByRole('dialog', { name: 'Delete 3 records?' }).locator('#confirm-body')).toContainText(
      `Deletes ${names[0]}, ${names[1]} and ${names[2]}, with their values`,
    );
    await everyShot(page, 'd-confirm-dialog');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
  });

  test('batch edit dialog', async ({ page }) => {
    await openDataset(page, 'Synthetic Samples');
    await rows(page).nth(1).click();
    await rows(page)
      .nth(3)
      .click({ modifiers: ['Shift'] });
    await page.getByRole('button', { name: 'Batch edit…' }).click();
    await expect(page.getByRole('dialog', { name: 'Batch edit 3 records' })).toBeVisible();
    await everyShot(page, 'h-batch-edit');
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toHaveCount(0);
  });

  test('jobs panel', async ({ page }) => {
    await openDataset(page, 'Synthetic Samples');
    await page.getByRole('button', { name: /^Jobs/ }).click();
    await expect(page.getByRole('complementary', { name: 'Jobs' })).toBeVisible();
    await everyShot(page, 'e-jobs-panel');
    await page.keyboard.press('Escape');
    await expect(page.getByRole('complementary', { name: 'Jobs' })).toHaveCount(0);
  });

  test('sync panel', async ({ page }) => {
    await openDataset(page, 'Synthetic Samples');
    await page.getByRole('button', { name: /^Sync/ }).click();
    await expect(page.getByRole('complementary', { name: 'Sync' })).toBeVisible();
    await everyShot(page, 'f-sync-panel');
  });

  test('template', async ({ page }) => {
    await openDataset(page, 'Synthetic Samples');
    await page.getByRole('button', { name: 'Template' }).click();
    await expect(page.getByRole('rowheader', { name: /Tags field/ })).toBeVisible();
    await everyShot(page, 'g-template');
  });
});

test('layout at 1024×700: list ≥ 360 px beside the pane, toolbar not overlapping, panels over the list', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await openDataset(page, 'Synthetic Samples');
  await findAndOpen(page, SYNTH_NAME(2));
  const list = await listFrame(page).boundingBox();
  const editor = await pane(page).boundingBox();
  expect(list!.width).toBeGreaterThanOrEqual(360);
  expect(list!.x + list!.width).toBeLessThanOrEqual(editor!.x);
  const search = await page.getByRole('searchbox', { name: 'Search records' }).boundingBox();
  expect(search!.width).toBeGreaterThanOrEqual(150);
  // No two toolbar controls overlap.
  const boxes = await page
    .getByRole('toolbar', { name: 'Record actions' })
    .locator('input, button')
    .evaluateAll((els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        return { l: r.left, r: r.right, t: r.top, b: r.bottom };
      }),
    );
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i]!, boxes[j]!];
      expect(a.r <= b.l || b.r <= a.l || a.b <= b.t || b.b <= a.t, `toolbar controls ${i} and ${j} overlap`).toBe(true);
    }
  }
  // The splitter: keyboard narrows the pane, the list widens; never below the minimum.
  const splitter = page.getByRole('separator', { name: 'Resize the record pane' });
  await splitter.focus();
  await page.keyboard.press('End'); // narrowest pane: the list widens
  await expect.poll(async () => Math.round((await listFrame(page).boundingBox())!.width)).toBeGreaterThan(Math.round(list!.width));
  await page.keyboard.press('Home'); // widest pane: the list at its minimum, not below
  await expect.poll(async () => Math.round((await listFrame(page).boundingBox())!.width)).toBe(360);

  // Every side panel opens over the content: the list and the top bar keep their size, the panel
  // takes the focus, Escape gives it back.
  const before = (await listFrame(page).boundingBox())!.width;
  const bar = (await page.getByRole('banner').boundingBox())!.width;
  for (const name of ['Jobs', 'Sync', 'Users', 'Trash']) {
    const opener = page.getByRole('banner').getByRole('button', { name: new RegExp(`^${name}($| \\()`) });
    await opener.click();
    await expect(page.getByRole('heading', { name })).toBeFocused();
    expect((await listFrame(page).boundingBox())!.width, `${name} open: the list`).toBe(before);
    expect((await page.getByRole('banner').boundingBox())!.width, `${name} open: the top bar`).toBe(bar);
    await page.keyboard.press('Escape');
    await expect(opener).toBeFocused();
  }
});

test('selection drives the pane: click and arrows show the record, Enter edits, Escape goes back', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  await rows(page).nth(2).click();
  const name2 = await rows(page).nth(2).getAttribute('aria-label');
  await expect(page.getByRole('complementary', { name: `Record ${name2}` })).toBeVisible();
  await expect(page).toHaveTitle(`${name2} — Synthetic Samples — odr-desktop`);
  await expect(grid(page)).toBeFocused();
  await page.keyboard.press('ArrowDown');
  const name3 = await rows(page).nth(3).getAttribute('aria-label');
  await expect(page.getByRole('complementary', { name: `Record ${name3}` })).toBeVisible();
  await expect(rows(page).nth(3)).toHaveAttribute('aria-selected', 'true');
  await expect(rows(page).nth(2)).toHaveAttribute('aria-selected', 'false');
  await expect(grid(page)).toHaveAttribute('aria-activedescendant', /-row-3$/);

  // Enter puts the focus in the first text field (the first field is a Boolean checkbox, which
  // typing would miss); Escape in the pane goes back to the list.
  await page.keyboard.press('Enter');
  const first = field(pane(page), 'Sample ID').getByRole('textbox');
  await expect(first).toBeFocused();
  await first.press('Escape'); // nothing typed: straight back to the list
  await expect(grid(page)).toBeFocused();
  await expect(pane(page)).toBeVisible();

  // Next / previous record buttons and Alt+↓.
  await page.getByRole('button', { name: 'Next record' }).click();
  const name4 = await rows(page).nth(4).getAttribute('aria-label');
  await expect(page.getByRole('complementary', { name: `Record ${name4}` })).toBeVisible();
  await page.keyboard.press('Alt+ArrowUp');
  await expect(page.getByRole('complementary', { name: `Record ${name3}` })).toBeVisible();

  // Escape in the list closes the pane.
  await grid(page).focus();
  await page.keyboard.press('Escape');
  await expect(pane(page)).toHaveCount(0);
  await expect(page).toHaveTitle('Synthetic Samples — odr-desktop');
});

test('multi-select: Ctrl-click toggles, Shift-click ranges, Ctrl+A and the header box select all', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  await rows(page).nth(1).click();
  await rows(page)
    .nth(4)
    .click({ modifiers: ['Shift'] });
  await expect(grid(page).locator('[aria-selected=true]')).toHaveCount(4);
  await rows(page)
    .nth(2)
    .click({ modifiers: ['Control'] });
  await expect(grid(page).locator('[aria-selected=true]')).toHaveCount(3);
  await expect(rows(page).nth(2)).toHaveAttribute('aria-selected', 'false');
  await expect(page.getByRole('button', { name: 'Delete selected (3)' })).toBeEnabled();

  const total = Number((await page.getByTestId('match-count').innerText()).replace(/\D/g, ''));
  await grid(page).focus();
  await page.keyboard.press('Control+a');
  await expect(page.getByRole('button', { name: `Delete selected (${total.toLocaleString('en-US')})` })).toBeVisible();
  // Past five records the delete dialog names five and counts the rest; Cancel deletes nothing.
  await page.getByRole('button', { name: `Delete selected (${total.toLocaleString('en-US')})` }).click();
  const confirm = page.getByRole('dialog', { name: `Delete ${total.toLocaleString('en-US')} records?` });
  await expect(confirm.locator('#confirm-body')).toHaveText(
    new RegExp(`^Deletes ([^,]+, ){4}[^,]+ and ${(total - 5).toLocaleString('en-US')} more, with their values`),
  );
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toHaveCount(0);
  await expect(page.getByRole('button', { name: `Delete selected (${total.toLocaleString('en-US')})` })).toBeVisible();
  // Ctrl+A selected records, not the page's text.
  expect(await page.evaluate(() => window.getSelection()?.toString() ?? '')).toBe('');
  const all = page.getByRole('checkbox', { name: 'Select all records' });
  await expect(all).toBeChecked();
  await all.uncheck();
  await expect(grid(page).locator('[aria-selected=true]')).toHaveCount(0);
});

test('search says how many records match; a new record is scrolled to, shown and ready to type', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  await page.getByRole('searchbox', { name: 'Search records' }).fill(SYNTH_NAME(17));
  await expect(page.getByTestId('match-count')).toHaveText(/^1 of [\d,]+ match$/);
  await page.getByRole('searchbox', { name: 'Search records' }).fill('');
  await expect(page.getByTestId('match-count')).toHaveText(/records$/);

  await page.getByRole('button', { name: 'New record' }).click();
  const created = pane(page);
  await expect(created).toBeVisible();
  // The first field is a Boolean checkbox: the focus goes to the first text field (the ID), so typing lands.
  await expect(created.locator('.fields .field').first()).toHaveAttribute('data-fieldtype', 'Boolean');
  await expect(field(created, 'Sample ID').getByRole('textbox')).toBeFocused();
  await page.keyboard.type('Typed at once');
  await expect(field(created, 'Sample ID').getByRole('textbox')).toHaveValue('Typed at once');
  const active = grid(page).locator('.row.active[data-record]');
  await expect(active).toBeInViewport();
  await expect(active).toHaveAttribute('aria-selected', 'true');
  const id = field(created, 'Sample ID');
  await id.getByRole('textbox').fill('Made in the workspace e2e');
  await id.getByRole('textbox').press('Enter');
  await expect(id.getByRole('status')).toHaveText('Saved');
  await expect(page.getByRole('complementary', { name: 'Record Made in the workspace e2e' })).toBeVisible();
});

test('batch edit: one value across the selection with progress, undone in one step with Ctrl+Z', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const column = await grid(page)
    .getByRole('columnheader')
    .evaluateAll((hs) => hs.findIndex((h) => h.textContent?.startsWith('Medium Text field')));
  const cell = (i: number) =>
    rows(page)
      .nth(i)
      .locator(`.cell:nth-child(${column + 1})`);
  const was = await Promise.all([5, 6, 7].map((i) => cell(i).innerText()));
  await rows(page).nth(5).click();
  await rows(page)
    .nth(7)
    .click({ modifiers: ['Shift'] });
  await expect(page.getByRole('button', { name: 'Delete selected (3)' })).toBeVisible();
  await page.getByRole('button', { name: 'Batch edit…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Batch edit 3 records' });
  await dialog.getByLabel('Field').selectOption({ label: 'Medium Text field' });
  await dialog.getByLabel('New value (empty clears)').fill('set by a batch');
  await dialog.getByRole('button', { name: 'Apply to 3' }).click();
  await expect(dialog).toHaveCount(0);
  for (const i of [5, 6, 7]) await expect(cell(i)).toHaveText('set by a batch');
  await grid(page).focus();
  await page.keyboard.press('Control+z');
  for (const [k, i] of [5, 6, 7].entries()) await expect(cell(i)).toHaveText(was[k]!);
});
