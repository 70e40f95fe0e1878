import { expect, test, type Page } from '@playwright/test';
import { SYNTH } from '../bench/synthetic.js';
import { apiToken, baseUrl, field, readRecord } from './support/app.js';
import { openDataset } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD, findAndOpen } from './support/curate.js';
import { everyShot } from './support/screens.js';

// Undo of an edit whose field changed since (a sync pull, a script, another window): the undo is
// sent with what its step left, the service refuses it (409) when the field holds something else,
// and the newer value stays; Ctrl+Z says plainly what changed and the step leaves the list.
// Seed record 39 is this spec's own.

const messages = (page: Page) => page.getByRole('region', { name: 'Messages' });
const undoButton = (page: Page) => page.getByRole('group', { name: 'Undo and redo' }).getByRole('button', { name: 'Undo' });
const I = 39;

/** Another writer (a script over the API) changes a field of the record. */
async function writeElsewhere(path: string, init: RequestInit) {
  const res = await fetch(`${baseUrl()}/api/v4${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${await apiToken()}`, 'Content-Type': 'application/json' },
  });
  expect(res.status).toBe(200);
}

const fieldOf = async (name: string) => (await readRecord(SYNTH_RECORD(I))).body.fields.find((f) => f.field_name === name);

test('a value changed since the edit: Ctrl+Z leaves the newer value and says what it holds now', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(I));
  const input = field(editor, 'Medium Text field').getByRole('textbox');
  await input.focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('my edit');
  await page.keyboard.press('Enter');
  await expect(editor.getByText('Saved')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(undoButton(page)).toHaveAttribute('title', /Undo the change to Medium Text field/);

  await writeElsewhere(`/record/${SYNTH_RECORD(I)}/${SYNTH.field('Medium Text')}/value`, {
    method: 'POST',
    body: JSON.stringify({ value: 'written by a script' }),
  });

  await page.keyboard.press('Control+z');
  const alert = messages(page).getByRole('alert');
  await expect(alert).toContainText(
    'Cannot undo the change to Medium Text field: it was changed since (a sync, a script or another window) and holds "written by a script" now; it is left as it is.',
  );
  await expect(alert).toContainText('It is off the undo list.');
  expect(await alert.innerText()).not.toContain(SYNTH_RECORD(I));
  await expect(undoButton(page)).toBeDisabled();
  expect((await fieldOf('Medium Text field'))?.value).toBe('written by a script');
  await expect(input).toHaveValue('written by a script');
  // Nothing waits to be saved: the field holds the newer value, stored.
  await expect(field(editor, 'Medium Text field').getByText('Not saved')).toHaveCount(0);
  await everyShot(page, 'undo-newer-value', () => expect(alert).toBeVisible());
});

test('a radio changed since the click: Ctrl+Z leaves the newer choice and says its selection changed', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(I));
  const radio = field(editor, 'Single Radio field');
  const names = await radio
    .getByRole('radio')
    .evaluateAll((els) => (els as HTMLInputElement[]).map((e) => ({ name: (e.parentElement?.textContent ?? '').trim(), on: e.checked })));
  const [mine, theirs] = names.filter((n) => !n.on).map((n) => n.name) as [string, string];
  await radio.getByRole('radio', { name: mine }).check();
  await expect(radio.getByRole('status')).toHaveText('Saved');

  const option = SYNTH.option('Single Radio', Number(/(\d+)$/.exec(theirs)![1]));
  await writeElsewhere(`/record/${SYNTH_RECORD(I)}/${SYNTH.field('Single Radio')}/${option}/selected`, { method: 'PUT' });

  await page.getByRole('grid').focus();
  await page.keyboard.press('Control+z');
  const alert = messages(page).getByRole('alert');
  await expect(alert).toContainText(
    'Cannot undo the change to Single Radio field: its selection was changed since (a sync, a script or another window); it is left as it is.',
  );
  await expect(radio.getByRole('radio', { name: theirs })).toBeChecked();
  expect((await fieldOf('Single Radio field'))?.values?.map((v) => v.name)).toEqual([theirs]);
});
