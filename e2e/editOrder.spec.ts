import { expect, test } from '@playwright/test';
import { field, openDataset, readRecord } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD, findAndOpen } from './support/curate.js';

// Two saves of one field made one after the other were sent at once, so the second could reach
// the service first and the field kept the earlier value. The first save is held on its way
// until the second has been made (and, without the order, sent and answered), then let go: the
// service must hold the second. Record 31's Medium Text (the spec leaves its text there;
// undoWhileDeleting.spec edits it too, and both start from whatever it holds).

const mediumText = async (i: number) =>
  (await readRecord(SYNTH_RECORD(i))).body.fields.find((f) => f.field_name === 'Medium Text field')?.value ?? null;

test('two saves of one field in a row: the service keeps the second, even when the first is held', async ({ page }) => {
  const i = 31;
  const before = await mediumText(i);
  // Neither is what it holds (the same text is no edit), whichever run left it there.
  const tag = String(before).endsWith('(b)') ? '(a)' : '(b)';
  const [first, second] = [`first save ${tag}`, `second save ${tag}`];
  // Value saves the page asks for, counted when its code calls fetch (before any network step).
  await page.addInitScript(() => {
    const w = window as unknown as { valueSends: number };
    w.valueSends = 0;
    const send = window.fetch.bind(window);
    window.fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).endsWith('/value')) w.valueSends++;
      return send(input, init);
    };
  });
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(i));
  const input = field(editor, 'Medium Text field').getByRole('textbox');

  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const answers: Promise<unknown>[] = [];
  let seen = 0;
  await page.route('**/api/v4/record/*/*/value', async (route) => {
    if (++seen === 1) await held;
    answers.push(route.continue());
  });

  await input.focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.type(first);
  await page.keyboard.press('Enter');
  await expect.poll(() => seen).toBe(1);
  const secondAnswered = page.waitForResponse((r) => r.url().endsWith('/value') && r.request().postData()?.includes(second) === true);
  await input.focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.type(second);
  await page.keyboard.press('Enter');
  await expect(input).toHaveValue(second);
  // Queued behind the held first save, the second is pending from its Enter on: its badge says
  // so before its turn (it once showed nothing until then).
  const badge = field(editor, 'Medium Text field').getByRole('status');
  await expect(badge).toHaveText('Saving…');
  // Two tasks later, a second save not made to wait has called fetch: then it goes first, and its
  // answer is waited for, so without the order the first would land last every time.
  const sends = await page.evaluate(
    () => new Promise<number>((r) => setTimeout(() => setTimeout(() => r((window as unknown as { valueSends: number }).valueSends)), 0)),
  );
  if (sends > 1) await secondAnswered;
  release();
  await secondAnswered;
  await Promise.all(answers);
  expect(seen).toBe(2);
  await expect(field(editor, 'Medium Text field').getByRole('status')).toHaveText('Saved');
  await expect.poll(() => mediumText(i)).toBe(second);
  // What the service holds stays: nothing sent later puts the first back.
  await expect(input).toHaveValue(second);
  expect(await mediumText(i)).toBe(second);
});

// Ctrl+Z (here the toolbar's Undo) while the edit is held, then another edit: the undo takes its
// place behind the held save at once, before the newer edit. It once waited for the held save's
// answer and only then queued itself, behind the newer edit: the service got edit, newer edit,
// undo, and refused the undo as "changed since". Its copy shows at once, as any edit's.
test('undo while the edit is held, then a newer edit: sent in that order, nothing refused', async ({ page }) => {
  const i = 31;
  const before = await mediumText(i);
  const tag = String(before).endsWith('(b)') ? '(a)' : '(b)';
  const [edited, newer] = [`edited then undone ${tag}`, `newer than the undo ${tag}`];
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(i));
  const input = field(editor, 'Medium Text field').getByRole('textbox');
  const badge = field(editor, 'Medium Text field').getByRole('status');
  const undoRedo = page.getByRole('group', { name: 'Undo and redo' });

  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const sent: unknown[] = [];
  const answers: Promise<unknown>[] = [];
  await page.route('**/api/v4/record/*/*/value', async (route) => {
    sent.push((route.request().postDataJSON() as { value?: unknown }).value);
    if (sent.length === 1) await held;
    answers.push(route.continue());
  });

  await input.focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.type(edited);
  await page.keyboard.press('Enter');
  await expect.poll(() => sent.length).toBe(1);
  await undoRedo.getByRole('button', { name: 'Undo' }).click();
  await expect(input).toHaveValue(typeof before === 'string' ? before : '');
  await expect(badge).toHaveText('Saving…');
  await input.focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.type(newer);
  await page.keyboard.press('Enter');
  await expect(input).toHaveValue(newer);
  await expect(badge).toHaveText('Saving…');
  release();
  await expect.poll(() => sent.length).toBe(3);
  await Promise.all(answers);
  expect(sent).toEqual([edited, before ?? '', newer]);
  await expect(badge).toHaveText('Saved');
  await expect.poll(() => mediumText(i)).toBe(newer);
  await expect(input).toHaveValue(newer);
  await expect(undoRedo.getByRole('button', { name: 'Undo' })).toHaveAttribute('title', /Undo the change to Medium Text field/);
  await expect(page.getByRole('region', { name: 'Messages' }).getByText(/Cannot undo/)).toHaveCount(0);
});
