import { expect, test, type Page } from '@playwright/test';
import { apiToken, baseUrl, field, openDataset, readRecord } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD, addFileOverHttp, findAndOpen } from './support/curate.js';
import { blockingViolations } from './support/screens.js';

// Issue #15 item 6: per-field history from the change log with "restore this value", and undo /
// redo across records for single edits, batch edits and deletes.

const valueOf = async (i: number, name: string) =>
  (await readRecord(SYNTH_RECORD(i))).body.fields.find((f) => f.field_name === name)?.value ?? null;

async function setText(page: Page, i: number, value: string) {
  const editor = await findAndOpen(page, SYNTH_NAME(i));
  const box = field(editor, 'Medium Text field').getByRole('textbox');
  await box.fill(value);
  await box.press('Enter');
  await expect(field(editor, 'Medium Text field').getByRole('status')).toHaveText('Saved');
  await box.blur();
  return editor;
}

test('field history: who, when (one date format), old → new, option names; restore is an ordinary edit', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  await setText(page, 21, 'history one');
  const editor = await setText(page, 21, 'history two');
  const f = field(editor, 'Medium Text field');
  await f.getByRole('button', { name: 'History of Medium Text field' }).click();
  const list = f.getByRole('region', { name: 'History of Medium Text field' });
  const newest = list.getByRole('listitem').first();
  await expect(newest).toContainText('history one → history two');
  await expect(newest.locator('time')).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d \S+$/);
  await expect(newest).toContainText(/admin|Admin/i);
  expect(await blockingViolations(page)).toEqual([]);

  await newest.getByRole('button', { name: 'Restore this value: Medium Text field back to “history one”' }).click();
  await expect(f.getByRole('textbox')).toHaveValue('history one');
  await expect.poll(() => valueOf(21, 'Medium Text field')).toBe('history one');
  // The restore is logged like any edit: it is now the newest step.
  await expect(list.getByRole('listitem').first()).toContainText('history two → history one');

  // Options are named, not shown as uuids.
  const radio = field(editor, 'Single Radio field');
  const free = await radio
    .getByRole('radio')
    .evaluateAll((els) => (els as HTMLInputElement[]).filter((e) => !e.checked).map((e) => (e.parentElement?.textContent ?? '').trim()));
  await radio.getByRole('radio', { name: free[0] }).click();
  await expect(radio.getByRole('status')).toHaveText('Saved');
  await radio.getByRole('button', { name: 'History of Single Radio field' }).click();
  await expect(radio.getByRole('region').getByRole('listitem').first()).toContainText(`→ ${free[0]}`);

  // The whole record's history, every field named.
  await editor.getByRole('button', { name: 'History', exact: true }).click();
  const all = editor.getByRole('region', { name: 'Record history' });
  await expect(all.getByRole('listitem').first()).toContainText('Single Radio field:');
  await expect(all.getByText('Medium Text field:').first()).toBeVisible();
});

test('undo and redo across records: Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const was22 = await valueOf(22, 'Medium Text field');
  const was23 = await valueOf(23, 'Medium Text field');
  await setText(page, 22, 'undo A');
  await setText(page, 23, 'undo B');
  await page.getByRole('grid').focus();
  await page.keyboard.press('Control+z');
  await expect.poll(() => valueOf(23, 'Medium Text field')).toBe(was23);
  await page.keyboard.press('Control+z');
  await expect.poll(() => valueOf(22, 'Medium Text field')).toBe(was22);
  await page.keyboard.press('Control+Shift+z');
  await expect.poll(() => valueOf(22, 'Medium Text field')).toBe('undo A');
  await page.keyboard.press('Control+y');
  await expect.poll(() => valueOf(23, 'Medium Text field')).toBe('undo B');
  await expect(page.getByRole('button', { name: 'Redo', exact: true })).toBeDisabled();
  // The buttons do the same.
  await page.getByRole('button', { name: 'Undo', exact: true }).click();
  await expect.poll(() => valueOf(23, 'Medium Text field')).toBe(was23);
  // A new edit clears what could be redone.
  await setText(page, 24, 'undo C');
  await expect(page.getByRole('button', { name: 'Redo', exact: true })).toBeDisabled();
});

test('a batch edit is undone and redone as one step', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  await page.getByRole('searchbox', { name: 'Search records' }).fill('S-00003');
  await expect(page.getByTestId('match-count')).toHaveText(/^[\d,]+ of [\d,]+ match$/);
  const rows = page.getByRole('grid').locator('[data-record]');
  await rows.nth(0).click();
  await rows.nth(2).click({ modifiers: ['Shift'] });
  const ids = await Promise.all([0, 1, 2].map((n) => rows.nth(n).getAttribute('data-record')));
  const idx = ids.map((u) => Number(u!.slice(1)));
  const before = await Promise.all(idx.map((i) => valueOf(i, 'Medium Text field')));
  await page.getByRole('button', { name: 'Batch edit…' }).click();
  const dlg = page.getByRole('dialog', { name: 'Batch edit 3 records' });
  await dlg.getByLabel('Field').selectOption({ label: 'Medium Text field' });
  await dlg.getByLabel('New value (empty clears)').fill('batched');
  await dlg.getByRole('button', { name: 'Apply to 3' }).click();
  await expect(dlg).toHaveCount(0);
  await expect.poll(() => Promise.all(idx.map((i) => valueOf(i, 'Medium Text field')))).toEqual(['batched', 'batched', 'batched']);
  await page.getByRole('grid').focus();
  await page.keyboard.press('Control+z');
  await expect.poll(() => Promise.all(idx.map((i) => valueOf(i, 'Medium Text field')))).toEqual(before);
  await page.keyboard.press('Control+Shift+z');
  await expect.poll(() => Promise.all(idx.map((i) => valueOf(i, 'Medium Text field')))).toEqual(['batched', 'batched', 'batched']);
  await page.keyboard.press('Control+z');
  await expect.poll(() => Promise.all(idx.map((i) => valueOf(i, 'Medium Text field')))).toEqual(before);
});

test('a delete is a step of the undo history: after other edits, Ctrl+Z back to it brings the record back with its values and files', async ({
  page,
}) => {
  const uuid = SYNTH_RECORD(25);
  const token = await apiToken();
  // A file with real bytes on the record, to see them come back.
  await addFileOverHttp(uuid, 'kept.txt', 'bytes that survive a delete');
  const before = await readRecord(uuid);
  const kept = before.body.fields.flatMap((f) => f.files ?? []).find((f) => f.original_name === 'kept.txt')!;
  expect(kept).toBeTruthy();

  await openDataset(page, 'Synthetic Samples');
  await page.getByRole('searchbox', { name: 'Search records' }).fill(SYNTH_NAME(25));
  // The search has replaced the list (a new search clears the selection).
  await expect(page.getByTestId('match-count')).toHaveText(/^1 of [\d,]+ match$/);
  const row = page.getByRole('row', { name: SYNTH_NAME(25), exact: true });
  await row.getByRole('checkbox').check();
  await page.getByRole('button', { name: /Delete selected \(1\)/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(row).toHaveCount(0);
  expect((await readRecord(uuid)).status).toBe(404);
  await page.getByRole('searchbox', { name: 'Search records' }).fill('');

  // Other changes after it, well past any notice's time.
  const was26 = await valueOf(26, 'Medium Text field');
  await setText(page, 26, 'after the delete');
  await page.getByRole('grid').focus();
  await page.keyboard.press('Control+z');
  await expect.poll(() => valueOf(26, 'Medium Text field')).toBe(was26);
  await expect(page.getByRole('group', { name: 'Undo and redo' }).getByRole('button', { name: 'Undo' })).toHaveAttribute(
    'title',
    /the delete of this record/,
  );
  await page.keyboard.press('Control+z');
  await expect.poll(async () => (await readRecord(uuid)).status).toBe(200);
  expect((await readRecord(uuid)).body).toEqual(before.body);
  const bytes = await fetch(`${baseUrl()}/api/v4/file/${kept.file_uuid}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(await bytes.text()).toBe('bytes that survive a delete');
  await page.getByRole('searchbox', { name: 'Search records' }).fill(SYNTH_NAME(25));
  await expect(row).toBeVisible();

  // Redo deletes it again; undo once more brings it back.
  await page.getByRole('grid').focus();
  await page.keyboard.press('Control+Shift+z');
  await expect.poll(async () => (await readRecord(uuid)).status).toBe(404);
  await expect(row).toHaveCount(0);
  await page.keyboard.press('Control+z');
  await expect.poll(async () => (await readRecord(uuid)).status).toBe(200);
  await expect(row).toBeVisible();
});
