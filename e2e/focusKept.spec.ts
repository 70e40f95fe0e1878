import { expect, test, type Page } from '@playwright/test';
import { apiToken, baseUrl, field, openDataset, readRecord } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD, addFileOverHttp, childrenOf, findAndOpen, removeFirstChild } from './support/curate.js';
import { everyShot } from './support/screens.js';
import { SYNTH } from '../bench/synthetic.js';

// A button that goes away on success (its row removed, itself swapped for another) must not drop
// the focus to the page body, where the next Tab starts over at the top: the focus goes to what
// took its place. From the keyboard, as someone without a mouse does it.

const messages = (page: Page) => page.getByRole('region', { name: 'Messages' });
const onBody = (page: Page) => page.evaluate(() => document.activeElement === document.body || document.activeElement === null);

test('child record Remove: the focus goes to the row that took its place and stays there through Ctrl+Z', async ({ page }) => {
  const I = 20;
  const { kids, first, section, instead } = await removeFirstChild(page, I);
  await expect(instead).toBeFocused();
  await expect.poll(async () => (await childrenOf(I)).length).toBe(kids.length - 1);
  const notice = messages(page).getByText(`Removed Subsamples record “${first.record_name}”`);
  await expect(notice).toBeVisible();

  // Ctrl+Z from there: the row is back, the focus has not moved, the notice offering Undo went
  // with the step (already when "Undid" shows, long before the notice's own time is up).
  await page.keyboard.press('Control+z');
  await expect(messages(page).getByText(/^Undid: the delete of Subsamples record/)).toBeVisible();
  expect(await notice.count()).toBe(0);
  await expect(section.getByRole('button', { name: `Remove Subsamples record ${first.record_name}` })).toBeVisible();
  await expect.poll(async () => (await childrenOf(I)).length).toBe(kids.length);
  await expect(instead).toBeFocused();
  expect(await onBody(page)).toBe(false);
  await everyShot(page, 'child-undo-focus', () => expect(instead).toBeFocused());
});

test('the Undo of a notice: the notice goes and the focus goes back to where it came from', async ({ page }) => {
  const I = 0;
  const { kids, first, instead } = await removeFirstChild(page, I);
  await expect(instead).toBeFocused();
  const notice = messages(page)
    .locator('.toast')
    .filter({ hasText: `Removed Subsamples record “${first.record_name}”` });
  const undo = notice.getByRole('button', { name: 'Undo' });
  // Into the notice by keyboard (Tab on from the record pane reaches the messages region); the
  // control Tab left last is marked: that is where the focus comes back to.
  const mark = () =>
    page.evaluate(() => {
      document.querySelector('[data-left-for-notice]')?.removeAttribute('data-left-for-notice');
      document.activeElement?.setAttribute('data-left-for-notice', '');
    });
  for (let n = 0; n < 300 && !(await undo.evaluate((el) => el === document.activeElement)); n++) {
    await mark();
    await page.keyboard.press('Tab');
  }
  await expect(undo).toBeFocused();
  const cameFrom = page.locator('[data-left-for-notice]');
  await expect(cameFrom).toHaveCount(1);
  await page.keyboard.press('Enter');
  await expect(notice).toHaveCount(0);
  await expect.poll(async () => (await childrenOf(I)).length).toBe(kids.length);
  await expect(cameFrom).toBeFocused();
  expect(await onBody(page)).toBe(false);
});

test('Export: once started, the focus follows to the progress and then to Download', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  const opener = page.getByRole('toolbar', { name: 'Record actions' }).getByRole('button', { name: 'Export…' });
  await opener.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: /^Export / });
  const start = dialog.getByRole('button', { name: 'Export', exact: true });
  await start.focus();
  await page.keyboard.press('Enter');
  const download = dialog.getByRole('link', { name: 'Download' });
  await expect(download).toBeFocused();
  await everyShot(page, 'export-download-focus', () => expect(download).toBeFocused());
  await page.keyboard.press('Escape');
  await expect(opener).toBeFocused();
});

test('deleting records: from the toolbar or the record pane, the focus goes to the list; Ctrl+Z there brings them back', async ({
  page,
}) => {
  const grid = page.getByRole('grid');
  await openDataset(page, 'Synthetic Samples');
  // From the toolbar: the selection goes, so Delete selected is disabled.
  await findAndOpen(page, SYNTH_NAME(37));
  const row = grid.getByRole('row', { name: SYNTH_NAME(37), exact: true });
  await row.getByRole('checkbox').check();
  const toolbarDelete = page.getByRole('toolbar', { name: 'Record actions' }).getByRole('button', { name: 'Delete selected (1)' });
  await toolbarDelete.focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await readRecord(SYNTH_RECORD(37))).status).toBe(404);
  await expect(grid).toBeFocused();
  await page.keyboard.press('Control+z');
  await expect.poll(async () => (await readRecord(SYNTH_RECORD(37))).status).toBe(200);
  await expect(grid).toBeFocused();

  // From the record pane: the pane closes with its button.
  await findAndOpen(page, SYNTH_NAME(38));
  const pane = page.getByRole('complementary', { name: `Record ${SYNTH_NAME(38)}` });
  await pane.getByRole('button', { name: 'Delete record' }).focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await readRecord(SYNTH_RECORD(38))).status).toBe(404);
  await expect(pane).toHaveCount(0);
  await expect(grid).toBeFocused();
  await page.keyboard.press('Control+z');
  await expect.poll(async () => (await readRecord(SYNTH_RECORD(38))).status).toBe(200);
  await expect(grid).toBeFocused();
});

test('deleting a file: the focus goes to the next file, or to "choose…" when none is left', async ({ page }) => {
  const i = 15;
  const files = () => readRecord(SYNTH_RECORD(i)).then((r) => r.body.fields.find((f) => f.field_name === 'File field')?.files ?? []);
  // Two files of its own whatever an earlier try left (this test deletes every file it finds).
  for (let k = (await files()).length; k < 2; k++) await addFileOverHttp(SYNTH_RECORD(i), `focus-${k}.txt`, `focus file ${k}`);
  const before = await files();
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(i));
  const fileField = field(editor, 'File field');
  for (let n = before.length; n > 0; n--) {
    const [f, next] = (await files()).map((x) => x.original_name);
    await fileField.getByRole('button', { name: `Delete ${f}` }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await files()).length).toBe(n - 1);
    await expect(
      next
        ? fileField.getByRole('button', { name: `Delete ${next}` })
        : fileField.getByRole('button', { name: 'Choose files for File field' }),
    ).toBeFocused();
  }
});

test('deleting a saved search: the focus goes to the next one, or to its dataset when none is left', async ({ page }) => {
  const DATASET = SYNTH.dataset;
  const auth = { Authorization: `Bearer ${await apiToken()}`, 'Content-Type': 'application/json' };
  for (const name of ['Focus one', 'Focus two']) {
    const res = await fetch(`${baseUrl()}/local/datasets/${DATASET}/saved-searches`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name, view: { q: name } }),
    });
    expect(res.status).toBe(200);
  }
  await openDataset(page, 'Synthetic Samples');
  const sidebar = page.getByRole('navigation', { name: 'Datasets' });
  const remove = async (name: string) => {
    await sidebar.getByRole('button', { name: `Delete saved search ${name}` }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect(sidebar.getByRole('link', { name: new RegExp(name) })).toHaveCount(0);
  };
  await remove('Focus one');
  await expect(sidebar.getByRole('link', { name: /Focus two/ })).toBeFocused();
  await remove('Focus two');
  await expect(sidebar.getByRole('link', { name: /^Synthetic Samples/ }).first()).toBeFocused();
});
