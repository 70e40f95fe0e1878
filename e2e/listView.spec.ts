import { readFileSync } from 'node:fs';
import Papa from 'papaparse';
import { expect, test, type Page } from '@playwright/test';
import { apiToken, baseUrl, openDataset } from './support/app.js';
import { everyShot } from './support/screens.js';
import { SYNTH } from '../bench/synthetic.js';

// Issue #15, the list: columns (pinned name, chooser, resize, keyboard sort), per-field filters
// with the match count, saved searches in the sidebar, and export of the current view.

// Screenshots at three sizes in two themes with axe take minutes on a loaded machine.
test.describe.configure({ timeout: 180_000 });

const DATASET = SYNTH.dataset;
const INTEGER = SYNTH.field('Integer');
const grid = (page: Page) => page.getByRole('grid');
const headers = (page: Page) => grid(page).getByRole('columnheader');
const count = (page: Page) => page.getByTestId('match-count');

async function local<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(`${baseUrl()}/local${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${await apiToken()}`, 'Content-Type': 'application/json', ...init.headers },
  });
  return (await res.json()) as T;
}
/** How many records the service says match: the figure the list must show. */
const matching = async (filters: unknown[], q = '') =>
  (
    await local<{ total: number }>(
      `/datasets/${DATASET}/record-uuids?q=${q}&filters=${encodeURIComponent(JSON.stringify(filters))}&limit=1`,
    )
  ).total;
const totalRecords = async () => (await local<{ total: number }>(`/datasets/${DATASET}/record-uuids?limit=1`)).total;

/** Back to the default columns, so the other specs see the list as they expect. */
test.afterAll(async () => {
  await local(`/datasets/${DATASET}/columns`, { method: 'DELETE' });
  expect((await local<{ layout: unknown }>(`/datasets/${DATASET}/columns`)).layout).toBeNull();
});

test('columns: name pinned first; chooser shows, hides and reorders by keyboard; remembered across reloads', async ({ page }) => {
  await local(`/datasets/${DATASET}/columns`, { method: 'PUT', body: JSON.stringify({ columns: [{ key: '_id' }, { key: INTEGER }] }) });
  await openDataset(page, 'Synthetic Samples');
  await expect(headers(page)).toHaveText(['', 'Name', 'ID', 'Integer field']);

  await page.getByRole('button', { name: 'Columns…' }).click();
  const chooser = page.getByRole('dialog', { name: 'Columns' });
  await expect(chooser).toBeVisible();
  await everyShot(page, 'i-column-chooser');
  // Show two more columns, hide ID, move Integer down — all by keyboard.
  await chooser.getByRole('checkbox', { name: 'Decimal field' }).focus();
  await page.keyboard.press('Space');
  await chooser.getByRole('checkbox', { name: 'Tags field' }).focus();
  await page.keyboard.press('Space');
  await chooser.getByRole('checkbox', { name: 'ID', exact: true }).focus();
  await page.keyboard.press('Space');
  await expect(headers(page)).toHaveText(['', 'Name', 'Integer field', 'Decimal field', 'Tags field']);
  await chooser.getByRole('checkbox', { name: 'Integer field' }).focus();
  await page.keyboard.press('Alt+ArrowDown');
  await expect(chooser.getByRole('checkbox', { name: 'Integer field' })).toBeFocused();
  await page.keyboard.press('Alt+ArrowDown');
  await expect(headers(page)).toHaveText(['', 'Name', 'Decimal field', 'Tags field', 'Integer field']);
  await chooser.getByRole('button', { name: 'Move Tags field up' }).click();
  await expect(headers(page)).toHaveText(['', 'Name', 'Tags field', 'Decimal field', 'Integer field']);
  await page.keyboard.press('Escape');
  await expect(chooser).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Columns…' })).toBeFocused();

  // Kept by the service: a reload (as a restart) shows the same columns.
  await expect
    .poll(
      async () => (await local<{ layout: { columns: { key: string }[] } | null }>(`/datasets/${DATASET}/columns`)).layout?.columns.length,
    )
    .toBe(3);
  await page.reload();
  await expect(headers(page)).toHaveText(['', 'Name', 'Tags field', 'Decimal field', 'Integer field']);
});

test('columns: changes made faster than the list re-renders all count', async ({ page }) => {
  await local(`/datasets/${DATASET}/columns`, { method: 'PUT', body: JSON.stringify({ columns: [{ key: '_id' }, { key: INTEGER }] }) });
  await openDataset(page, 'Synthetic Samples');
  await expect(headers(page)).toHaveText(['', 'Name', 'ID', 'Integer field']);
  await page.getByRole('button', { name: 'Columns…' }).click();
  const chooser = page.getByRole('dialog', { name: 'Columns' });
  // Three clicks in one task: no render can come between them, so each must build on the last
  // one's layout, not on what the chooser showed when it was drawn.
  await chooser.evaluate((el) => {
    for (const name of ['Decimal field', 'Tags field', 'ID'])
      [...el.querySelectorAll('label')]
        .find((l) => l.textContent?.trim() === name)!
        .querySelector('input')!
        .click();
  });
  await expect(headers(page)).toHaveText(['', 'Name', 'Integer field', 'Decimal field', 'Tags field']);
  await expect
    .poll(async () =>
      (await local<{ layout: { columns: { key: string }[] } | null }>(`/datasets/${DATASET}/columns`)).layout?.columns.map((c) => c.key),
    )
    .toEqual([INTEGER, SYNTH.field('Decimal'), SYNTH.field('Tags')]);
  await page.keyboard.press('Escape');
});

test('columns resize by mouse and by keyboard, and the width is remembered', async ({ page }) => {
  await local(`/datasets/${DATASET}/columns`, {
    method: 'PUT',
    body: JSON.stringify({ columns: [{ key: '_id' }, { key: INTEGER, width: 160 }] }),
  });
  await openDataset(page, 'Synthetic Samples');
  const handle = page.getByRole('separator', { name: 'Resize column ID' });
  const id = headers(page).nth(2);
  // The start width is the one the handle reports, once the header is drawn at it: a box read
  // before the table settles (fonts, column fitting) is a width the handle never had.
  const settled = async () => {
    const now = Number(await handle.getAttribute('aria-valuenow'));
    return Math.round((await id.boundingBox())!.width) === now ? now : -1;
  };
  await expect.poll(settled).toBeGreaterThan(0);
  const w0 = await settled();
  await handle.focus();
  await page.keyboard.press('ArrowRight');
  await expect(handle).toHaveAttribute('aria-valuenow', String(Math.round(w0) + 10));
  // Two more presses in one task: no render comes between them, so the second must build on
  // the first (CI once lost a press this way under load).
  await handle.evaluate((el) => {
    el.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    el.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', shiftKey: true, bubbles: true }));
  });
  await expect(handle).toHaveAttribute('aria-valuenow', String(Math.round(w0) + 70));
  await expect.poll(async () => Math.round((await id.boundingBox())!.width)).toBe(Math.round(w0) + 70);
  // Mouse: drag the Integer column's edge 60 px to the right.
  const edge = (await page.getByRole('separator', { name: 'Resize column Integer field' }).boundingBox())!;
  await page.mouse.move(edge.x + edge.width / 2, edge.y + edge.height / 2);
  await page.mouse.down();
  await page.mouse.move(edge.x + edge.width / 2 + 30, edge.y + edge.height / 2);
  await page.mouse.move(edge.x + edge.width / 2 + 60, edge.y + edge.height / 2);
  await page.mouse.up();
  await expect(page.getByRole('separator', { name: 'Resize column Integer field' })).toHaveAttribute('aria-valuenow', '220');
  await expect
    .poll(
      async () => (await local<{ layout: { columns: { key: string; width?: number }[] } }>(`/datasets/${DATASET}/columns`)).layout.columns,
    )
    .toEqual([
      { key: '_id', width: Math.round(w0) + 70 },
      { key: INTEGER, width: 220 },
    ]);
  await page.reload();
  await expect(page.getByRole('separator', { name: 'Resize column ID' })).toHaveAttribute('aria-valuenow', String(Math.round(w0) + 70));
});

test('sorting by keyboard: ↑ into the column headers, Enter sorts up, again down, again off', async ({ page }) => {
  await local(`/datasets/${DATASET}/columns`, { method: 'PUT', body: JSON.stringify({ columns: [{ key: '_id' }, { key: INTEGER }] }) });
  await openDataset(page, 'Synthetic Samples');
  await grid(page).focus();
  const sort = page.getByRole('button', { name: 'Sort by Integer field' });
  // The header row is above the top row, a row of the grid (e2e/keyboard.spec.ts); End is its last cell.
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('End');
  await expect(sort).toBeFocused();
  const header = headers(page).nth(3);
  await page.keyboard.press('Enter');
  await expect(header).toHaveAttribute('aria-sort', 'ascending');
  const first = await grid(page).locator('[data-record]').first().getAttribute('data-record');
  const lowest = (await local<{ uuids: string[] }>(`/datasets/${DATASET}/record-uuids?sort=${INTEGER}&limit=1`)).uuids[0];
  expect(first).toBe(lowest);
  await page.keyboard.press('Enter');
  await expect(header).toHaveAttribute('aria-sort', 'descending');
  await page.keyboard.press('Enter');
  await expect(header).not.toHaveAttribute('aria-sort', /./);
});

test('filters: range, option is / is not, has a file, public, with full-text search; the count says how many match', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const all = await totalRecords();
  await page.getByTestId('filters-toggle').click();
  const bar = page.getByRole('region', { name: 'Filters' });
  await bar.getByRole('combobox', { name: 'Add a filter' }).selectOption({ label: 'Integer field' });
  await expect(bar.getByRole('textbox', { name: 'Integer field from' })).toBeFocused();
  await page.keyboard.type('0');
  let want = await matching([{ kind: 'range', field: INTEGER, min: '0' }]);
  expect(want).toBeGreaterThan(0);
  expect(want).toBeLessThan(all);
  await expect(count(page)).toHaveText(`${want.toLocaleString('en-US')} of ${all.toLocaleString('en-US')} match`);
  await expect(page.getByTestId('filters-toggle')).toHaveText('Filters (1)');

  await bar.getByRole('combobox', { name: 'Add a filter' }).selectOption({ label: 'Single Select field' });
  await bar.getByRole('checkbox', { name: 'Single Select option 2' }).check();
  const opt = { kind: 'option', field: SYNTH.field('Single Select'), options: [SYNTH.option('Single Select', 2)] };
  want = await matching([{ kind: 'range', field: INTEGER, min: '0' }, opt]);
  await expect(count(page)).toHaveText(`${want.toLocaleString('en-US')} of ${all.toLocaleString('en-US')} match`);
  await bar.getByRole('combobox', { name: 'Single Select field: is or is not' }).selectOption('not');
  want = await matching([
    { kind: 'range', field: INTEGER, min: '0' },
    { ...opt, not: true },
  ]);
  await expect(count(page)).toHaveText(`${want.toLocaleString('en-US')} of ${all.toLocaleString('en-US')} match`);

  await bar.getByRole('combobox', { name: 'Add a filter' }).selectOption({ label: 'Public status' });
  await bar.getByRole('combobox', { name: 'Public or private' }).selectOption('private');
  await bar.getByRole('combobox', { name: 'Add a filter' }).selectOption({ label: 'File field' });
  const filters = [
    { kind: 'range', field: INTEGER, min: '0' },
    { ...opt, not: true },
    { kind: 'public', public: false },
    { kind: 'file', field: SYNTH.field('File'), has: true },
  ];
  want = await matching(filters);
  await expect(count(page)).toHaveText(`${want.toLocaleString('en-US')} of ${all.toLocaleString('en-US')} match`);
  await everyShot(page, 'j-filters');

  // With full-text search on top.
  await bar.getByRole('button', { name: 'Remove filter File field' }).click();
  await page.getByRole('searchbox', { name: 'Search records' }).fill('S-00000');
  want = await matching(filters.slice(0, 3), 'S-00000');
  await expect(count(page)).toHaveText(`${want.toLocaleString('en-US')} of ${all.toLocaleString('en-US')} match`);
  await bar.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByRole('searchbox', { name: 'Search records' }).fill('');
  await expect(count(page)).toHaveText(`${all.toLocaleString('en-US')} records`);
});

test('saved searches: save the view, open it from the sidebar, survive a reload, delete', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const all = await totalRecords();
  await page.getByRole('searchbox', { name: 'Search records' }).fill('S-0000');
  await page.getByTestId('filters-toggle').click();
  const bar = page.getByRole('region', { name: 'Filters' });
  await bar.getByRole('combobox', { name: 'Add a filter' }).selectOption({ label: 'Integer field' });
  // The new filter's box takes the focus in the next frame: typed before, the 0 would go nowhere
  // (a busy machine made this test fail).
  await expect(page.getByRole('textbox', { name: 'Integer field from' })).toBeFocused();
  await page.keyboard.type('0');
  const want = await matching([{ kind: 'range', field: INTEGER, min: '0' }], 'S-0000');
  await expect(count(page)).toHaveText(`${want} of ${all.toLocaleString('en-US')} match`);
  await page.getByRole('button', { name: 'Save search…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Save this search' });
  await expect(dialog.getByRole('textbox', { name: 'Name' })).toBeFocused();
  await dialog.getByRole('textbox', { name: 'Name' }).fill('');
  await everyShot(page, 'k-save-search');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Give the search a name');
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Early, positive');
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveCount(0);
  const sidebar = page.getByRole('navigation', { name: 'Datasets' });
  const link = sidebar.getByRole('link', { name: /Early, positive/ });
  await expect(link).toBeVisible();

  // Clear the view, then open the saved search: search, filters and count come back.
  await bar.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByRole('searchbox', { name: 'Search records' }).fill('');
  await expect(count(page)).toHaveText(`${all.toLocaleString('en-US')} records`);
  await page.reload();
  await link.click();
  await expect(count(page)).toHaveText(`${want} of ${all.toLocaleString('en-US')} match`);
  await expect(page.getByRole('searchbox', { name: 'Search records' })).toHaveValue('S-0000');
  await expect(page.getByRole('textbox', { name: 'Integer field from' })).toHaveValue('0');
  await expect(page).not.toHaveURL(/search=/);
  await everyShot(page, 'l-saved-search-open');

  await sidebar.getByRole('button', { name: 'Delete saved search Early, positive' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(link).toHaveCount(0);
  expect((await local<{ searches: unknown[] }>(`/datasets/${DATASET}/saved-searches`)).searches).toEqual([]);
});

test('export of the current view: CSV with its columns and filters, JSON record list; a job with progress, then a download', async ({
  page,
}) => {
  await local(`/datasets/${DATASET}/columns`, { method: 'PUT', body: JSON.stringify({ columns: [{ key: INTEGER }, { key: '_id' }] }) });
  await openDataset(page, 'Synthetic Samples');
  const all = await totalRecords();
  await page.getByTestId('filters-toggle').click();
  await page.getByRole('combobox', { name: 'Add a filter' }).selectOption({ label: 'Integer field' });
  // The new filter's box takes the focus after a render: typed before, the 0 would go nowhere.
  await expect(page.getByRole('textbox', { name: 'Integer field from' })).toBeFocused();
  await page.keyboard.type('0');
  const filters = [{ kind: 'range', field: INTEGER, min: '0' }];
  const want = await matching(filters);
  await expect(count(page)).toHaveText(`${want.toLocaleString('en-US')} of ${all.toLocaleString('en-US')} match`);
  // Sorted by the integer, descending.
  await page.getByRole('button', { name: 'Sort by Integer field' }).click();
  await page.getByRole('button', { name: 'Sort by Integer field' }).click();
  await expect(headers(page).nth(2)).toHaveAttribute('aria-sort', 'descending');

  await page.getByRole('button', { name: 'Export…' }).click();
  const dialog = page.getByRole('dialog', { name: /^Export/ });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('heading')).toHaveText(`Export ${want.toLocaleString('en-US')} records`);
  await dialog.getByRole('button', { name: 'Export' }).click();
  const download = dialog.getByRole('link', { name: 'Download' });
  await expect(download).toBeVisible();
  await expect(dialog.getByRole('progressbar', { name: 'Export progress' })).toHaveAttribute('aria-valuetext', '100 %');
  await everyShot(page, 'm-export-dialog');
  const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
  const csv = readFileSync((await file.path())!, 'utf8').replace(/^\uFEFF/, '');
  const parsed = Papa.parse<string[]>(csv, { skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  expect(parsed.data[0]).toEqual(['record_uuid', 'internal_id', 'name', 'Integer field']);
  expect(parsed.data.length - 1).toBe(want);
  const ints = parsed.data.slice(1).map((r) => Number(r[3]));
  expect(ints.every((n) => n >= 0)).toBe(true);
  expect(ints).toEqual([...ints].sort((a, b) => b - a));
  await dialog.getByRole('button', { name: 'Close' }).click();

  // JSON: the ODR record list, and the Jobs panel lists both exports with their downloads.
  await page.getByRole('button', { name: 'Export…' }).click();
  await dialog.getByRole('radio', { name: /JSON/ }).check();
  await dialog.getByRole('button', { name: 'Export' }).click();
  const [jsonFile] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('link', { name: 'Download' }).click()]);
  const list = JSON.parse(readFileSync((await jsonFile.path())!, 'utf8')) as { count: number; records: { record_uuid: string }[] };
  expect(list.count).toBe(want);
  expect(list.records.map((r) => r.record_uuid)).toEqual(parsed.data.slice(1).map((r) => r[0]));
  await dialog.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: /^Jobs/ }).click();
  const jobs = page.getByRole('complementary', { name: 'Jobs' });
  await expect(jobs.getByRole('listitem').filter({ hasText: 'Export' }).getByRole('link', { name: 'Download' }).first()).toBeVisible();
});
