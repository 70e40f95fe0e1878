import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiToken, baseUrl, field, openDataset } from './support/app.js';
import { SYNTH_NAME, findAndOpen } from './support/curate.js';
import { everyShot } from './support/screens.js';

// Layout and wording defects from the keyboard walk at 1024×700: what must fit a narrow window,
// and what the user reads instead of ids and API values. Each check measures boxes in the page.

test.describe.configure({ timeout: 120_000 });

const DATASET = 'a0000000000000000000000000d1';
const NARROW = { width: 1024, height: 700 };
const pane = (page: Page) => page.locator('aside.editor');

type Box = { x: number; y: number; width: number; height: number };
const box = async (l: Locator): Promise<Box> => (await l.boundingBox())!;
/** `inner` lies wholly inside `outer` from left to right (half a pixel of rounding allowed). */
const within = (inner: Box, outer: Box) => inner.x >= outer.x - 0.5 && inner.x + inner.width <= outer.x + outer.width + 0.5;

/** Every control of a child table (and of an open child record) shows whole inside the table's pane. */
async function expectChildTableFits(section: Locator) {
  const wrap = section.locator('.child-table-wrap');
  const [scroll, client] = await wrap.evaluate((e) => [e.scrollWidth, e.clientWidth]);
  expect(scroll, 'the child table is no wider than its place in the pane').toBeLessThanOrEqual(client);
  const area = await box(wrap);
  const edge = await box(pane(section.page()));
  for (const b of await section.getByRole('button').all()) {
    const name = (await b.getAttribute('aria-label')) ?? (await b.textContent());
    const at = await box(b);
    expect(within(at, area), `${name} inside the child table's area`).toBe(true);
    expect(within(at, edge), `${name} inside the record pane`).toBe(true);
  }
}

test('child records table at 1024 px: fits the record pane, Open and Remove whole, long values cut with an ellipsis', async ({ page }) => {
  await page.setViewportSize(NARROW);
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(20));
  const section = editor.getByRole('region', { name: 'Subsamples records' });
  const table = section.getByRole('table', { name: 'Subsamples records' });
  await section.scrollIntoViewIfNeeded();
  await expectChildTableFits(section);

  // A long value in a new child record: its cell is cut short (whole in its title), the actions stay.
  const long = 'a very long note that is far wider than any column of the compact table in a narrow record pane';
  await section.getByRole('button', { name: 'Add Subsamples record' }).click();
  const opened = section.getByRole('group', { name: /^Subsamples record / }).last();
  const split = field(opened, 'Split').getByRole('textbox');
  await split.fill('layout check');
  await split.press('Enter');
  const notes = field(opened, 'Notes').getByRole('textbox');
  await notes.fill(long);
  await notes.press('Tab');
  const cell = table.getByRole('cell', { name: long, exact: true });
  await expect(cell).toHaveAttribute('title', long);
  await expectChildTableFits(section);
  expect(await cell.evaluate((e) => e.scrollWidth > e.clientWidth), 'the long value is cut, not the table widened').toBe(true);
  await everyShot(page, 'layout-child-table', async () => {
    await expect(cell).toBeVisible();
    await cell.scrollIntoViewIfNeeded();
  });

  // Taken away again (the other specs count this record's children).
  await section.getByRole('button', { name: 'Remove Subsamples record layout check' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
  await expect(cell).toHaveCount(0);
});

test('jobs say what they work on by name, and their state in words, for every job shown', async ({ page }) => {
  const auth = { Authorization: `Bearer ${await apiToken()}` };
  const thumbs = await fetch(`${baseUrl()}/local/thumbnails/${DATASET}`, { method: 'POST', headers: auth });
  expect(thumbs.status).toBe(202);
  const thumbsJob = ((await thumbs.json()) as { id: number }).id;
  // A client's own job (POST /job) stays running until the client ends it.
  const client = await fetch(`${baseUrl()}/api/v4/job`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ job: { job_type: 'e2e_labels', target_entity: 'layout check', total: 2, additional_data: null } }),
  });
  expect(client.status).toBe(200);
  const clientJob = ((await client.json()) as { id: number }).id;

  await page.setViewportSize(NARROW);
  await openDataset(page, 'Synthetic Samples');
  await page.getByRole('button', { name: /^Jobs/ }).click();
  const panel = page.getByRole('complementary', { name: 'Jobs' });
  const thumbsRow = panel.locator(`li[data-job="${thumbsJob}"]`);
  await expect(thumbsRow.locator('.job-head')).toHaveText(/^Thumbnails\s*Synthetic Samples\s*Finished$/);
  await expect(panel).not.toContainText(DATASET);
  await expect(panel.locator(`li[data-job="${clientJob}"] .badge`)).toHaveText('Running');
  // Every job in the list, whatever its kind: a state in words, never the API value.
  const states = await panel.locator('.job .badge').allTextContents();
  expect(states.length).toBeGreaterThanOrEqual(2);
  for (const s of states) expect(['Running', 'Finished', 'Cancelled', 'Failed'], s).toContain(s);
  await everyShot(page, 'layout-jobs-words');

  await panel.locator(`li[data-job="${clientJob}"]`).getByRole('button', { name: 'Cancel' }).click();
  await expect(panel.locator(`li[data-job="${clientJob}"]`)).toHaveCount(0);
});

test('the list keeps its sideways scroll: Tab through the header never hides a column under Name, New record scrolls down only', async ({
  page,
}) => {
  await page.setViewportSize(NARROW);
  await openDataset(page, 'Synthetic Samples');
  const grid = page.getByRole('grid');
  const scroller = page.getByTestId('table-scroller');
  const nameHead = grid.getByRole('columnheader', { name: 'Name' });
  await grid.focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('Enter');
  await expect(pane(page)).toBeVisible();

  // Back from the record to New record by Shift+Tab: the walk crosses every header control.
  const newRecord = page.getByRole('button', { name: 'New record' });
  let crossed = 0;
  for (let i = 0; i < 80 && !(await newRecord.evaluate((e) => e === document.activeElement)); i++) {
    await page.keyboard.press('Shift+Tab');
    const focused = await page.evaluate(() => {
      const e = document.activeElement;
      if (!e?.closest('.head-cell')) return null;
      const r = e.getBoundingClientRect();
      return { name: e.getAttribute('aria-label'), x: r.x };
    });
    if (!focused) continue;
    crossed++;
    const pinned = await box(nameHead);
    const x = () => page.evaluate(() => document.activeElement!.getBoundingClientRect().x);
    await expect.poll(x, `${focused.name} is not under the pinned Name column`).toBeGreaterThanOrEqual(pinned.x + pinned.width - 0.5);
    // Its start at least shows (a control wider than the list's free part shows from its start).
    const list = await box(scroller);
    expect(await x(), `${focused.name} starts inside the list`).toBeLessThan(list.x + list.width - 8);
  }
  expect(crossed).toBeGreaterThan(4);
  await expect(newRecord).toBeFocused();
  const idHead = grid.locator('.head-cell.id');
  expect((await box(idHead)).x).toBeGreaterThanOrEqual((await box(nameHead)).x + (await box(nameHead)).width - 0.5);

  // Scrolled sideways by hand, then New record: the new row comes into view, the columns stay put.
  await scroller.evaluate((e) => (e.scrollLeft = 300));
  const left = await scroller.evaluate((e) => e.scrollLeft);
  expect(left).toBeGreaterThan(0);
  await page.keyboard.press('Enter');
  await expect(field(pane(page), 'Sample ID').getByRole('textbox')).toBeFocused();
  const fresh = grid.locator('.row.active[data-record]');
  await expect(fresh).toBeInViewport();
  expect(await scroller.evaluate((e) => e.scrollLeft)).toBe(left);
});
