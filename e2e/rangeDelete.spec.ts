import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { SYNTH, syntheticTemplate } from '../bench/synthetic.js';
import { apiToken, baseUrl, field, openDataset, readRecord } from './support/app.js';
import { SYNTH_NAME, holdDeletes } from './support/curate.js';

// Deleting a block of rows: the cursor lands on the row after the block, as after a single
// delete, or on the row before it when the block ended the list; the focus stays in the list.
// Deletes records 16 and 18 (free in the shared seed) and puts them back with Ctrl+Z; 17 and 19
// are only left out by the searches, never changed.

const grid = (page: Page) => page.getByRole('grid');
/** The name of the row the cursor is on (the grid's active descendant). */
const activeName = (page: Page) =>
  grid(page).evaluate((g) => {
    const id = g.getAttribute('aria-activedescendant');
    return id ? (document.getElementById(id)?.getAttribute('aria-label') ?? null) : null;
  });

test('deleting a Shift range with the cursor on its last row: the cursor lands on the row after it', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  await page.getByRole('searchbox', { name: 'Search records' }).fill(`S-00001 -"${SYNTH_NAME(17)}"`);
  const row = (i: number) => grid(page).getByRole('row', { name: SYNTH_NAME(i), exact: true });
  const [first, last] = [row(16), row(18)];
  await expect(row(17)).toHaveCount(0);
  await expect(first).toBeVisible();
  await expect(last).toBeVisible();
  // The row after the block, whatever the view's order: the one whose place follows the last's.
  const at = Number(await last.getAttribute('aria-rowindex'));
  expect(Number(await first.getAttribute('aria-rowindex'))).toBe(at - 1);
  const after = grid(page).locator(`[role=row][aria-rowindex="${at + 1}"]`);
  await expect(after).toHaveAttribute('data-record', /./);
  const next = await after.getAttribute('aria-label');

  await first.click({ position: { x: 60, y: 10 } });
  await last.click({ position: { x: 60, y: 10 }, modifiers: ['Shift'] });
  const deleteSelected = page.getByRole('toolbar', { name: 'Record actions' }).getByRole('button', { name: 'Delete selected (2)' });
  await expect(deleteSelected).toBeEnabled();
  await expect.poll(() => activeName(page)).toBe(SYNTH_NAME(18));
  await grid(page).focus();
  await page.keyboard.press('Delete');
  await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(first).toHaveCount(0);
  await expect(last).toHaveCount(0);
  await expect.poll(() => activeName(page)).toBe(next);
  await expect(grid(page)).toBeFocused();
  // Put the two back (Ctrl+Z in the list), so the test can run again on the same service.
  await page.keyboard.press('Control+z');
  await expect(first).toBeVisible();
  await expect(last).toBeVisible();
});

test('deleting a block that ends the list: the cursor lands on the row before it, the focus stays in the list', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  // Records 16 and 18 are the view's last rows, whatever its order: the search leaves out 17 and
  // 19, and they sort after 10–15 by name, id and creation alike. Checked below by their places.
  await page.getByRole('searchbox', { name: 'Search records' }).fill(`S-00001 -"${SYNTH_NAME(17)}" -"${SYNTH_NAME(19)}"`);
  const row = (i: number) => grid(page).getByRole('row', { name: SYNTH_NAME(i), exact: true });
  const [first, last] = [row(16), row(18)];
  await expect(row(19)).toHaveCount(0);
  await expect(first).toBeVisible();
  await expect(last).toBeVisible();
  const rowCount = Number(await grid(page).getAttribute('aria-rowcount'));
  expect(Number(await last.getAttribute('aria-rowindex'))).toBe(rowCount);
  expect(Number(await first.getAttribute('aria-rowindex'))).toBe(rowCount - 1);
  const before = await grid(page)
    .locator(`[role=row][aria-rowindex="${rowCount - 2}"]`)
    .getAttribute('aria-label');

  // Shift-click up from 18 to 16: the cursor is on the block's first row.
  await last.click({ position: { x: 60, y: 10 } });
  await first.click({ position: { x: 60, y: 10 }, modifiers: ['Shift'] });
  await expect(page.getByRole('toolbar', { name: 'Record actions' }).getByRole('button', { name: 'Delete selected (2)' })).toBeEnabled();
  await expect.poll(() => activeName(page)).toBe(SYNTH_NAME(16));
  await grid(page).focus();
  await page.keyboard.press('Delete');
  await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(first).toHaveCount(0);
  await expect(last).toHaveCount(0);
  await expect.poll(() => activeName(page)).toBe(before);
  await expect(grid(page)).toBeFocused();
  await page.keyboard.press('Control+z');
  await expect(first).toBeVisible();
  await expect(last).toBeVisible();
});

// The cases below work on a dataset of their own (made through the API, removed afterwards), so
// no other spec's data or order matters: ROWS records named D-0000…, in that order (checked).
const ROWS = 400;
const rowName = (i: number) => `D-${String(i).padStart(4, '0')}`;

async function local(path: string, init: RequestInit = {}) {
  const res = await fetch(`${baseUrl()}${path}`, { ...init, headers: { Authorization: `Bearer ${await apiToken()}`, ...init.headers } });
  expect(res.ok, `${path}: ${res.status}`).toBe(true);
  const text = await res.text();
  return (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, unknown>;
}

async function jobDone(id: unknown) {
  await expect
    .poll(async () => ((await local('/local/jobs')).jobs as { id: number; state: string }[]).find((j) => j.id === id)?.state, {
      timeout: 30_000,
    })
    .toBe('complete');
}

/**
 * A dataset of ROWS records with a Short Text name and a Medium Text field. Its uuids and ids
 * differ per test and per run (`code`), so a run never meets one left by another.
 */
async function ownDataset(info: TestInfo, k: number): Promise<{ uuid: string; name: string }> {
  const code = String(k * 100 + (info.repeatEachIndex % 10) * 10 + (info.retry % 10)).padStart(4, '0');
  const own = (u: string) => `${code}${u.slice(4)}`;
  const t = syntheticTemplate();
  const fields = t.fields
    .filter((f) => f.fieldtype === 'Short Text' || f.fieldtype === 'Medium Text')
    // The name field first: the list names a record by its first text field with a value.
    .sort((a, b) => (a.fieldtype === 'Short Text' ? -1 : 0) - (b.fieldtype === 'Short Text' ? -1 : 0))
    .map((f, i) => ({ ...f, internal_id: 20_000 + Number(code) * 10 + i, field_uuid: own(f.field_uuid as string) }));
  const uuid = own(SYNTH.dataset);
  const name = `Cursor Rows ${code}`;
  const template = { ...t, internal_id: 10_000 + Number(code), name, template_uuid: uuid, fields, related_databases: [] };
  const fd = new FormData();
  fd.append('file', new Blob([JSON.stringify(template)]), 'cursor-rows.json');
  await jobDone((await local('/local/import', { method: 'POST', body: fd })).id);
  const csv = ['Sample ID', ...Array.from({ length: ROWS }, (_, i) => rowName(i))].join('\n');
  const rows = new FormData();
  rows.append('format', 'csv');
  rows.append('dataset', uuid);
  rows.append('file', new Blob([csv]), 'rows.csv');
  await jobDone((await local('/local/import', { method: 'POST', body: rows })).id);
  return { uuid, name };
}

let made: string | null = null;
test.afterEach(async () => {
  if (made) await local(`/api/v4/dataset/${made}`, { method: 'DELETE' });
  made = null;
});

async function openOwn(page: Page, info: TestInfo, k: number) {
  const ds = await ownDataset(info, k);
  made = ds.uuid;
  await openDataset(page, ds.name);
  await expect(grid(page)).toHaveAttribute('aria-rowcount', String(ROWS + 1));
  // The list's order is the names' (records made in that order): checked on the first rows.
  for (const i of [0, 1, 2])
    await expect(grid(page).locator(`[role=row][aria-rowindex="${i + 2}"]`)).toHaveAttribute('aria-label', rowName(i));
}

/** The place (0-based) in the list of the row the cursor is on. */
const activeIndex = (page: Page) =>
  grid(page).evaluate((g) => {
    const id = g.getAttribute('aria-activedescendant');
    const row = id ? document.getElementById(id) : null;
    return row ? Number(row.getAttribute('aria-rowindex')) - 2 : null;
  });

/**
 * Rows 2 to about 350 selected by keys (Shift+End, Shift+PageUp twice): the cursor near the end,
 * the block's top far above the loaded rows. Answers the cursor's place and the row after it.
 */
async function blockWithTopUnloaded(page: Page) {
  await grid(page)
    .getByRole('row', { name: rowName(2), exact: true })
    .click({ position: { x: 60, y: 10 } });
  await page.keyboard.press('Escape');
  await grid(page).focus();
  await page.keyboard.press('Shift+End');
  await page.keyboard.press('Shift+PageUp');
  await page.keyboard.press('Shift+PageUp');
  await expect.poll(() => activeIndex(page)).toBeLessThan(ROWS - 20);
  const at = (await activeIndex(page))!;
  expect(at).toBeGreaterThan(250);
  const deleteSelected = page.getByRole('toolbar', { name: 'Record actions' }).getByRole('button', { name: `Delete selected (${at - 1})` });
  await expect(deleteSelected).toBeEnabled();
  // The top is not loaded: its row is not in the page at all.
  await expect(grid(page).getByRole('row', { name: rowName(2), exact: true })).toHaveCount(0);
  await expect(grid(page).getByRole('row', { name: rowName(at), exact: true })).toBeVisible();
  return at;
}

test('deleting a block whose top is not loaded: the cursor lands on the row after it', async ({ page }, info) => {
  test.setTimeout(120_000);
  await openOwn(page, info, 1);
  const at = await blockWithTopUnloaded(page);
  await page.keyboard.press('Delete');
  await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(grid(page)).toHaveAttribute('aria-rowcount', String(ROWS - (at - 1) + 1));
  await expect.poll(() => activeName(page)).toBe(rowName(at + 1));
  await expect.poll(() => activeIndex(page)).toBe(2);
  await expect(grid(page)).toBeFocused();
});

test('Ctrl+Z right after confirming a delete undoes that delete, not the edit before it', async ({ page }, info) => {
  test.setTimeout(120_000);
  await openOwn(page, info, 2);
  // An edit first: the step a Ctrl+Z would wrongly reach.
  await grid(page)
    .getByRole('row', { name: rowName(2), exact: true })
    .dblclick();
  const editor = page.getByRole('complementary', { name: `Record ${rowName(2)}` });
  const input = field(editor, 'Medium Text field').getByRole('textbox');
  await input.fill('edited before the delete');
  await input.press('Enter');
  const undo = page.getByRole('group', { name: 'Undo and redo' }).getByRole('button', { name: 'Undo' });
  await expect(undo).toHaveAttribute('title', /Undo the change to Medium Text field/);
  const uuid2 = await grid(page)
    .getByRole('row', { name: rowName(2), exact: true })
    .getAttribute('data-record');
  const medium = async () => (await readRecord(uuid2!)).body.fields.find((f) => f.field_name === 'Medium Text field')?.value ?? null;
  await expect.poll(medium).toBe('edited before the delete');

  const at = await blockWithTopUnloaded(page);
  // Held until Ctrl+Z is pressed: the delete's requests, and any read of the view's uuids (the
  // delete used to wait for one before its undo step went on the list).
  const { held, release: send, asked: deletes } = await holdDeletes(page);
  await page.route('**/record-uuids?*', async (route) => {
    await held;
    await route.continue();
  });
  await page.keyboard.press('Delete');
  await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
  // The rows say "deleting…": the delete is under way for the person, so Ctrl+Z is its.
  await expect(grid(page).getByRole('row', { name: rowName(at), exact: true })).toContainText('deleting…');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(grid(page)).toBeFocused();
  await page.keyboard.press('Control+z');
  const deleted = page.waitForResponse((r) => r.url().endsWith('/api/v4/record') && r.request().method() === 'DELETE');
  send();
  expect((await deleted).status()).toBe(200);
  expect(deletes()).toBeGreaterThan(0);
  // Deleted, then all put back by the Ctrl+Z that waited for the delete; the edit stays.
  await expect.poll(async () => (await local(`/local/datasets/${made}/records?limit=1`)).total ?? null, { timeout: 60_000 }).toBe(ROWS);
  await expect(grid(page)).toHaveAttribute('aria-rowcount', String(ROWS + 1));
  await expect(undo).toHaveAttribute('title', /Undo the change to Medium Text field/);
  expect(await medium()).toBe('edited before the delete');
});

test('a refused delete leaves the cursor on its record', async ({ page }, info) => {
  await openOwn(page, info, 3);
  await page.route('**/api/v4/record', async (route) => {
    if (route.request().method() !== 'DELETE') return route.fallback();
    await route.fulfill({ status: 403, contentType: 'application/json', body: JSON.stringify({ error: 'refused by the test' }) });
  });
  const row = (i: number) => grid(page).getByRole('row', { name: rowName(i), exact: true });
  await row(3).click({ position: { x: 60, y: 10 } });
  await row(6).click({ position: { x: 60, y: 10 }, modifiers: ['Shift'] });
  await expect(page.getByRole('toolbar', { name: 'Record actions' }).getByRole('button', { name: 'Delete selected (4)' })).toBeEnabled();
  await expect.poll(() => activeName(page)).toBe(rowName(6));
  await grid(page).focus();
  await page.keyboard.press('Delete');
  await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(page.getByText(/Not deleted: /)).toBeVisible();
  await expect(row(3)).toBeVisible();
  await expect(row(6)).toBeVisible();
  await expect(row(6)).not.toContainText('deleting…');
  expect(await activeName(page)).toBe(rowName(6));
  expect(await activeIndex(page)).toBe(6);
  await expect(grid(page)).toHaveAttribute('aria-rowcount', String(ROWS + 1));
});
