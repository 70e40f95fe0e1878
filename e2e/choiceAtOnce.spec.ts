import { expect, test, type Locator, type Page } from '@playwright/test';
import { checkedRightAfterClick, field, openDataset, readRecord, screenshot } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD, findAndOpen } from './support/curate.js';

// A click on an option, tag, boolean or row checkbox shows its new state in the click's own
// event: a controlled input whose state arrives a tick later is put back by React at the end of
// the event and flickers (and Playwright's check() can read it unchanged). The state is read
// synchronously right after a dispatched click, which is exactly what React has restored or not
// (soft assertions: one run names every late control). Seed records 4 and 6 are this spec's own.

/** Picks an option of a <select> as a user would and answers its value at once. */
const valueRightAfterPick = (select: Locator, value: string) =>
  select.evaluate((el: HTMLSelectElement, v) => {
    el.value = v;
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return el.value;
  }, value);

const stored = async (i: number, name: string) => (await readRecord(SYNTH_RECORD(i))).body.fields.find((f) => f.field_name === name);

/** The names of the options not chosen now (the seed may have chosen some). */
const unchecked = (group: Locator, role: 'radio' | 'checkbox') =>
  group
    .getByRole(role)
    .evaluateAll((els) => (els as HTMLInputElement[]).filter((e) => !e.checked).map((e) => (e.parentElement?.textContent ?? '').trim()));

async function saved(f: Locator) {
  await expect(f.getByRole('status')).toHaveText('Saved');
}

test('editor: radios, checkboxes, tags, a boolean and a drop-down show the click at once', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(4));

  const radio = field(editor, 'Single Radio field');
  const [mine] = (await unchecked(radio, 'radio')) as [string];
  expect.soft(await checkedRightAfterClick(radio.getByRole('radio', { name: mine }))).toBe(true);
  await saved(radio);
  await expect.poll(async () => (await stored(4, 'Single Radio field'))?.values?.map((v) => v.name)).toEqual([mine]);

  const multi = field(editor, 'Multiple Select field');
  const [one] = (await unchecked(multi, 'checkbox')) as [string];
  const box = multi.getByRole('checkbox', { name: one });
  expect.soft(await checkedRightAfterClick(box)).toBe(true);
  await saved(multi);
  expect.soft(await checkedRightAfterClick(box)).toBe(false);
  await saved(multi);

  const tags = field(editor, 'Tags field');
  const tag = tags.getByRole('checkbox', { name: 'Group 1 item 2' });
  const was = await tag.isChecked();
  expect.soft(await checkedRightAfterClick(tag)).toBe(!was);
  await saved(tags);

  const bool = field(editor, 'Boolean field');
  const on = await bool.getByRole('checkbox').isChecked();
  expect.soft(await checkedRightAfterClick(bool.getByRole('checkbox'))).toBe(!on);
  await saved(bool);

  const select = field(editor, 'Single Select field').getByRole('combobox');
  const choices = await select.locator('option').evaluateAll((els) => (els as HTMLOptionElement[]).map((o) => o.value).filter(Boolean));
  const current = await select.inputValue();
  const other = choices.find((v) => v !== current)!;
  expect.soft(await valueRightAfterPick(select, other)).toBe(other);
  await saved(field(editor, 'Single Select field'));
  await expect(select).toHaveValue(other);
  for (const size of [
    { width: 1024, height: 700 },
    { width: 1920, height: 1080 },
  ]) {
    await page.setViewportSize(size);
    await radio.scrollIntoViewIfNeeded();
    await screenshot(page, `choices-at-once-${size.width}x${size.height}`);
  }
});

const rowBox = (page: Page, name: string) => page.getByRole('grid').getByRole('row', { name, exact: true }).getByRole('checkbox');

test('record table: a row checkbox and "Select all" show the click at once', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  await findAndOpen(page, SYNTH_NAME(6));
  const grid = page.getByRole('grid');
  const all = grid.getByRole('checkbox', { name: 'Select all records' });
  // The opened row is the selection; its checkbox toggles it off at once.
  const row = rowBox(page, SYNTH_NAME(6));
  await expect(row).toBeChecked();
  expect.soft(await checkedRightAfterClick(row)).toBe(false);
  await expect(row).not.toBeChecked();
  // "Select all" asks the service for every uuid of the view: the box shows the click before that.
  expect.soft(await checkedRightAfterClick(all)).toBe(true);
  await expect(row).toBeChecked();
  await expect(all).toBeChecked();
  expect.soft(await checkedRightAfterClick(all)).toBe(false);
  await expect(row).not.toBeChecked();
  // A shift-click extends the selection from the anchor (a range read from the service).
  const shiftChecked = await row.evaluate((el: HTMLInputElement) => {
    el.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, shiftKey: true }));
    return el.checked;
  });
  expect.soft(shiftChecked).toBe(true);
  await expect(row).toBeChecked();
  for (const size of [
    { width: 1024, height: 700 },
    { width: 1920, height: 1080 },
  ]) {
    await page.setViewportSize(size);
    await screenshot(page, `select-at-once-${size.width}x${size.height}`);
  }
});
