import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiToken, baseUrl, field, openDataset, readRecord } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD, findAndOpen } from './support/curate.js';
import { everyShot } from './support/screens.js';
import { SYNTH } from '../bench/synthetic.js';

// Layout and wording defects from the keyboard walk at 1024×700: what must fit a narrow window,
// and what the user reads instead of ids and API values. Each check measures boxes in the page.

test.describe.configure({ timeout: 120_000 });

const DATASET = SYNTH.dataset;
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
  const first = editor.getByRole('region', { name: 'Subsamples records' });
  await first.scrollIntoViewIfNeeded();
  await expectChildTableFits(first);

  // A long value in a new child record: its cell is cut short (whole in its title), the actions stay.
  // On a record no other spec reads, with values of this run only, and taken away again at the end
  // (through the API when the test stops before its own Remove), so a retry starts as the first try.
  const I = 29;
  const run = `layout check ${Date.now().toString(36)}`;
  const long = `${run}: a very long note that is far wider than any column of the compact table in a narrow record pane`;
  const kids = async () => ((await readRecord(SYNTH_RECORD(I))).body as unknown as { records?: { record_uuid: string }[] }).records ?? [];
  const before = new Set((await kids()).map((c) => c.record_uuid));
  let added: string | undefined;
  try {
    await page.getByRole('button', { name: 'Close record' }).click();
    const other = await findAndOpen(page, SYNTH_NAME(I));
    const section = other.getByRole('region', { name: 'Subsamples records' });
    const table = section.getByRole('table', { name: 'Subsamples records' });
    const groups = section.getByRole('group', { name: /^Subsamples record / });
    const open = await groups.count();
    await section.getByRole('button', { name: 'Add Subsamples record' }).click();
    await expect.poll(async () => (added = (await kids()).find((c) => !before.has(c.record_uuid))?.record_uuid)).toBeTruthy();
    // The new record's fields only once they show: an older child open from the start is a group too.
    await expect(groups).toHaveCount(open + 1);
    const opened = groups.last();
    const split = field(opened, 'Split').getByRole('textbox');
    await split.fill(run);
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

    await section.getByRole('button', { name: `Remove Subsamples record ${run}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await expect(cell).toHaveCount(0);
    await expect.poll(async () => (await kids()).map((c) => c.record_uuid).sort()).toEqual([...before].sort());
  } finally {
    if (added && (await kids()).some((c) => c.record_uuid === added)) {
      const res = await fetch(`${baseUrl()}/api/v4/record`, {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${await apiToken()}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ record_uuids: [added] }),
      });
      expect(res.status, 'the child record this test added is taken away').toBe(200);
    }
  }
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

test('the list keeps its sideways scroll: moving along the header never hides a column under Name, New record scrolls down only', async ({
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

  // The header by keyboard (a row of the grid: ↑ from the top row, End, then ← to its start): the
  // walk crosses every column's header cell.
  const newRecord = page.getByRole('button', { name: 'New record' });
  await grid.focus();
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('End');
  let crossed = 0;
  for (let i = 0; i < 40; i++) {
    const focused = await page.evaluate(() => {
      const e = document.activeElement;
      if (!e?.closest('.head-cell')) return null;
      const r = e.getBoundingClientRect();
      return { name: e.getAttribute('aria-label') ?? e.textContent, x: r.x };
    });
    if (!focused) break; // Select all, pinned: the header's start
    crossed++;
    const pinned = await box(nameHead);
    const x = () => page.evaluate(() => document.activeElement!.getBoundingClientRect().x);
    await expect.poll(x, `${focused.name} is not under the pinned Name column`).toBeGreaterThanOrEqual(pinned.x + pinned.width - 0.5);
    // Its start at least shows (a control wider than the list's free part shows from its start).
    const list = await box(scroller);
    expect(await x(), `${focused.name} starts inside the list`).toBeLessThan(list.x + list.width - 8);
    await page.keyboard.press('ArrowLeft');
  }
  // Then back to New record by Shift+Tab.
  for (let i = 0; i < 20 && !(await newRecord.evaluate((e) => e === document.activeElement)); i++) await page.keyboard.press('Shift+Tab');
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

/** The toolbar's controls all sit on one row and none is cut off. */
async function expectOneRow(page: Page, label: string) {
  const bar = page.getByRole('toolbar', { name: 'Record actions' });
  const rows = await bar.evaluate((t) => {
    // Vertical middles (the row centres controls of different heights).
    const mids = [...t.children]
      .filter((c) => (c as HTMLElement).offsetWidth > 0)
      .map((c) => (c.getBoundingClientRect().top + c.getBoundingClientRect().bottom) / 2);
    return { spread: Math.max(...mids) - Math.min(...mids), scroll: t.scrollWidth, client: t.clientWidth };
  });
  expect(rows.spread, `${label}: one row`).toBeLessThanOrEqual(2);
  expect(rows.scroll, `${label}: nothing cut off`).toBeLessThanOrEqual(rows.client);
}

test('the toolbar keeps one row from 1024 px up; what does not fit is in More, by keyboard', async ({ page }) => {
  for (const size of [NARROW, { width: 1400, height: 900 }, { width: 1920, height: 1080 }]) {
    await page.setViewportSize(size);
    await openDataset(page, 'Synthetic Samples');
    await expectOneRow(page, `${size.width} px, list alone`);
    await findAndOpen(page, SYNTH_NAME(5));
    await expectOneRow(page, `${size.width} px, record open`);
  }
  // At 1920 every action shows; at 1024 with the record open some are in More.
  await expect(page.getByRole('button', { name: /^More/ })).toHaveCount(0);
  await page.setViewportSize(NARROW);
  const more = page.getByRole('button', { name: /^More/ });
  await expect(more).toBeVisible();
  await expectOneRow(page, '1024 px after a resize');

  // Keyboard: ArrowDown opens on the first item, arrows move, Escape closes back on the button.
  await more.focus();
  await page.keyboard.press('ArrowDown');
  const menu = page.getByRole('menu', { name: 'More' });
  const items = menu.getByRole('menuitem');
  await expect(items.first()).toBeFocused();
  await page.keyboard.press('End');
  await expect(items.last()).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(more).toBeFocused();
  await expect(pane(page)).toBeVisible();
  // Enter on an item opens its dialog; closing it gives the focus back to More.
  await page.keyboard.press('Enter');
  await menu.getByRole('menuitem', { name: 'Columns…' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog', { name: 'Columns' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(more).toBeFocused();
  // Screenshots with the menu open wherever there is one (at 1400 and 1920 everything fits).
  await everyShot(page, 'layout-toolbar', async () => {
    const width = page.viewportSize()!.width;
    if (width > NARROW.width) await expect(more).toHaveCount(0);
    else {
      await expect(more).toBeVisible();
      if (!(await menu.count())) await more.click();
      await expect(menu).toBeVisible();
    }
    await expectOneRow(page, `${width} px`);
  });
});

test("the dataset's head keeps its two rows whatever its name and meta line say: cut short, whole in their titles", async ({ page }) => {
  const long = 'A dataset name long enough to fill any window twice over, '.repeat(6);
  const longMeta = '1,234,567 records · last change 2025-12-31 23:59 · '.repeat(6);
  for (const size of [NARROW, { width: 1920, height: 1080 }]) {
    await page.setViewportSize(size);
    await openDataset(page, 'Synthetic Samples');
    const head = page.locator('.dataset-head');
    const title = head.getByRole('heading', { level: 1 });
    const meta = head.locator('.dataset-title > p');
    await expect(title).toHaveAttribute('title', 'Synthetic Samples');
    await expect(meta).toHaveAttribute('title', /^[\d,]+ records? · last change \d{4}-\d\d-\d\d \d\d:\d\d /);
    const parts = async () => ({
      head: await box(head),
      tabs: await box(head.getByRole('navigation', { name: 'Dataset views' })),
      actions: await box(head.locator('.dataset-actions')),
    });
    const seen = await parts();
    // Texts of the test's own, set in the page: short, then far longer than any window.
    const texts: [string, string][] = [
      ['X', '1 record'],
      [long, '40 records'],
      ['X', longMeta],
      [long, longMeta],
    ];
    for (const [name, line] of texts) {
      await title.evaluate((e, t) => (e.textContent = t), name);
      await meta.evaluate((e, t) => (e.textContent = t), line);
      const now = await parts();
      const what = `${size.width} px, name of ${name.length} and meta line of ${line.length} characters`;
      expect(now, `${what}: nothing moves`).toEqual(seen);
      const [scroll, client] = await head.evaluate((e) => [e.scrollWidth, e.clientWidth]);
      expect(scroll, `${what}: nothing overflows the head`).toBeLessThanOrEqual(client);
      expect(within(await box(title), now.head), `${what}: the name inside the head`).toBe(true);
    }
    // Both long: the name keeps room, cut with an ellipsis; the meta line gives way first.
    expect(await title.evaluate((e) => e.scrollWidth > e.clientWidth && getComputedStyle(e).textOverflow)).toBe('ellipsis');
    expect((await box(title)).width).toBeGreaterThan((await box(meta)).width);
    // Tabs and actions share the second row.
    expect(Math.abs(seen.tabs.y + seen.tabs.height / 2 - (seen.actions.y + seen.actions.height / 2))).toBeLessThan(2);
  }
});

test("the record pane's meta line keeps one line whatever it says: cut short, whole in its title", async ({ page }) => {
  await page.setViewportSize(NARROW);
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(5));
  const meta = editor.locator('.editor-meta');
  await expect(meta).toHaveAttribute('title', /^#\d+ · by .+ · updated \d{4}-/);
  const head = editor.locator('.editor-head');
  const before = await box(head);
  // A creator's name of the test's own, far longer than the pane.
  await meta.evaluate((e) => (e.textContent = `#123456 · by ${'A person with a very long name '.repeat(8)}· updated 2025-12-31 23:59`));
  expect(await box(head)).toEqual(before);
  expect(await meta.evaluate((e) => e.scrollWidth > e.clientWidth && getComputedStyle(e).textOverflow)).toBe('ellipsis');
});

test('a dialog sets the screen behind it back, in dark as in light', async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  await openDataset(page, 'Synthetic Samples');
  for (const [scheme, least] of [
    ['light', 0.3],
    ['dark', 0.5],
  ] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.getByRole('button', { name: 'Export…' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toBeVisible();
    // The shade's opacity over black: the browser's own is 0.1, which left a dark dialog hardly
    // apart from the dark list.
    const shade = await dialog.evaluate((e) => getComputedStyle(e, '::backdrop').backgroundColor);
    const alpha = Number(/rgba\(0, 0, 0, ([\d.]+)\)/.exec(shade)?.[1]);
    expect(alpha, `${scheme}: ${shade}`).toBeGreaterThanOrEqual(least);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
  }
});

test('column headers show their names whole at their default widths; each names its column on hover', async ({ page }) => {
  // The default layout (listView.spec.ts puts it back after its own changes too).
  const res = await fetch(`${baseUrl()}/local/datasets/${DATASET}/columns`, {
    method: 'DELETE',
    headers: { Authorization: `Bearer ${await apiToken()}` },
  });
  expect(res.ok).toBe(true);
  await page.setViewportSize(NARROW);
  await openDataset(page, 'Synthetic Samples');
  const headers = page.locator('.head-cell');
  await expect(headers.filter({ hasText: 'Image field' })).toHaveCount(1);
  for (const h of await headers.all()) {
    const label = h.locator(':scope > .link, :scope > span');
    const name = await label.getAttribute('title');
    expect(name, 'the header names its column on hover').toBeTruthy();
    expect(await label.evaluate((e) => e.scrollWidth <= e.clientWidth), `${name} whole`).toBe(true);
  }
});

test('the Filters button stays put as the count beside it changes', async ({ page }) => {
  await page.setViewportSize(NARROW);
  await openDataset(page, 'Synthetic Samples');
  const filters = page.getByTestId('filters-toggle');
  const count = page.getByTestId('match-count');
  const search = page.getByRole('searchbox', { name: 'Search records' });
  const at = async () => (await box(filters)).x;
  const first = await at();
  for (const [q, shown] of [
    ['"S-000010"', /^1 of [\d,]+ match$/],
    ['S-00001', /^\d+ of [\d,]+ match$/],
    ['', /records$/],
  ] as const) {
    await search.fill(q);
    await expect(count).toHaveText(shown);
    expect(await at(), `Filters with the count “${await count.textContent()}”`).toBe(first);
  }
});

test('the search refusal keeps each term whole on its line at any list width', async ({ page }) => {
  await page.setViewportSize(NARROW);
  await openDataset(page, 'Synthetic Samples');
  await findAndOpen(page, SYNTH_NAME(3));
  await page.getByRole('searchbox', { name: 'Search records' }).fill('-S-000010');
  const alert = page.getByTestId('search-error');
  await expect(alert).toContainText('-S-000010 only excludes records');
  // Every place "-S-000010" appears lies on one line, as the window (and so the list) narrows.
  const splitTerms = () =>
    alert.evaluate((p) => {
      const text = p.textContent ?? '';
      const split: number[] = [];
      const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
      const nodes: Text[] = [];
      while (walker.nextNode()) nodes.push(walker.currentNode as Text);
      for (let at = text.indexOf('-S-000010'); at >= 0; at = text.indexOf('-S-000010', at + 1)) {
        const r = document.createRange();
        let seen = 0;
        for (const n of nodes) {
          const len = n.data.length;
          if (seen <= at && at < seen + len) r.setStart(n, at - seen);
          if (seen < at + 9 && at + 9 <= seen + len) r.setEnd(n, at + 9 - seen);
          seen += len;
        }
        const tops = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
        if (tops.size > 1) split.push(at);
      }
      return split;
    });
  for (let width = 1024; width <= 1200; width += 4) {
    await page.setViewportSize({ width, height: 700 });
    expect(await splitTerms(), `split terms at ${width} px`).toEqual([]);
  }
  await page.setViewportSize(NARROW);
  await everyShot(page, 'layout-search-refusal', () => expect(alert).toBeVisible());
});

test('with the list scrolled sideways, "no record matches" and a refused search show whole', async ({ page }) => {
  await page.setViewportSize(NARROW);
  await openDataset(page, 'Synthetic Samples');
  const scroller = page.getByTestId('table-scroller');
  await scroller.evaluate((e) => (e.scrollLeft = e.scrollWidth));
  expect(await scroller.evaluate((e) => e.scrollLeft), 'the list is wider than a narrow window').toBeGreaterThan(100);
  const search = page.getByRole('searchbox', { name: 'Search records' });
  for (const [q, message] of [
    ['zzz-no-such-word', page.getByText('No record matches “zzz-no-such-word”.')],
    ['-S-000010', page.getByTestId('search-error')],
  ] as const) {
    await search.fill(q);
    await expect(message).toBeVisible();
    expect(await scroller.evaluate((e) => e.scrollLeft), 'still scrolled sideways').toBeGreaterThan(100);
    expect(within(await box(message), await box(scroller)), `${q}: the message lies inside the list's visible part`).toBe(true);
  }
  await everyShot(page, 'layout-no-match-scrolled');
});

test('with the list scrolled sideways, the pinned box and Name cover their rows top to bottom: nothing scrolled under them shows', async ({
  page,
}) => {
  await page.setViewportSize(NARROW);
  await openDataset(page, 'Synthetic Samples');
  const scroller = page.getByTestId('table-scroller');
  // Far enough that the ID and Boolean columns (their header's resize handles too) lie under Name.
  await scroller.evaluate((e) => (e.scrollLeft = 300));
  expect(await scroller.evaluate((e) => e.scrollLeft)).toBe(300);
  const grid = page.getByRole('grid');
  const rows = [grid.locator('.row.head'), grid.locator('.rows-at > .row[data-record]').first()];
  for (const row of rows) {
    const r = await box(row);
    for (const pin of [row.locator('.cell.check'), row.locator('.cell.name')]) {
      const p = await box(pin);
      // Two px inside the row's top and bottom edges (the bottom one is the row's border).
      for (const y of [r.y + 2, r.y + r.height - 3]) {
        for (const x of [p.x + 4, p.x + p.width / 2, p.x + p.width - 4]) {
          const top = await page.evaluate(
            ([x, y]) => {
              const e = document.elementFromPoint(x!, y!);
              return e?.closest('.cell.pin') ? 'pin' : `${e?.className}`;
            },
            [x, y],
          );
          expect(top, `${await row.getAttribute('class')} at ${Math.round(x)},${Math.round(y)}`).toBe('pin');
        }
      }
    }
  }
});
