import { expect, test } from '@playwright/test';
import { field, openDataset, readRecord } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD, findAndOpen, holdDeletes } from './support/curate.js';

// A delete went on the undo list only when its answer came, so Ctrl+Z pressed while it was on
// its way undid the step before it (here an edit of another record) and the delete stayed. The
// delete's request is held until Ctrl+Z has been pressed, so that order is the same every time.
// Records 31 (edited; editOrder.spec saves its Medium Text too) and 28 (deleted, then put back).

const shortText = async (i: number) =>
  (await readRecord(SYNTH_RECORD(i))).body.fields.find((f) => f.field_name === 'Medium Text field')?.value ?? null;

test('Ctrl+Z while a delete is on its way undoes that delete once done, not the edit before it', async ({ page }) => {
  const before = await shortText(31);
  // Not what it holds (the test leaves its text there): the same text is no edit.
  const typed = before === 'kept through a held delete' ? 'kept through a held delete, again' : 'kept through a held delete';
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(31));
  const input = field(editor, 'Medium Text field').getByRole('textbox');
  await input.focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.type(typed);
  await page.keyboard.press('Enter');
  const undo = page.getByRole('group', { name: 'Undo and redo' }).getByRole('button', { name: 'Undo' });
  await expect(undo).toHaveAttribute('title', /Undo the change to Medium Text field/);
  await expect.poll(() => shortText(31)).toBe(typed);

  const { release: send, asked: deletes } = await holdDeletes(page);
  const pane = await findAndOpen(page, SYNTH_NAME(28));
  await pane.getByRole('button', { name: 'Delete record' }).click();
  await page.getByRole('dialog', { name: 'Delete this record?' }).getByRole('button', { name: 'Delete', exact: true }).click();
  await expect.poll(deletes).toBe(1);
  await expect(page.getByRole('dialog')).toHaveCount(0);
  expect(await page.evaluate(() => document.activeElement?.matches('input, textarea, select') ?? false), 'Ctrl+Z reaches the window').toBe(
    false,
  );
  await page.keyboard.press('Control+z');

  const deleted = page.waitForResponse((r) => r.url().endsWith('/api/v4/record') && r.request().method() === 'DELETE');
  send();
  expect((await deleted).status()).toBe(200);
  // Deleted, then put back by the Ctrl+Z that waited for it; the edit before it stays.
  await expect.poll(async () => (await readRecord(SYNTH_RECORD(28))).status).toBe(200);
  await expect(undo).toHaveAttribute('title', /Undo the change to Medium Text field/);
  expect(await shortText(31)).toBe(typed);
});
