import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page, type Route } from '@playwright/test';
import { ROOT } from './support/app.js';
import { startServe, type Served } from './support/serve.js';
import { everyShot } from './support/screens.js';

// The capped search total in the list (issue #17): a service whose count stops at 5
// (ODR_COUNT_CAP, its test-only setting) on 40 synthetic records. The list shows "5+" until the
// exact count arrives — held here at the network until the lower-bound state is checked — and
// select-all, export and the list's length work with the lower bound and then with the figure.

const CAP = 5;
const WORD = 'basalt';
test.describe.configure({ timeout: 180_000 });

/** A seeded data dir of `records` synthetic records served with a count cap of `cap`, for the tests of the block it is called in. */
function serveCapped(records: number, cap: number): () => Served {
  let dir: string;
  let own: Served;
  test.beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'odr-e2e-count-'));
    const seed = spawnSync(process.execPath, ['--import', 'tsx', 'e2e/support/seed.ts', dir, String(records)], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (seed.status !== 0) throw new Error(`seeding failed:\n${seed.stdout}\n${seed.stderr}`);
    own = await startServe(dir, [], { ODR_COUNT_CAP: String(cap) });
  });
  test.afterAll(async () => {
    await own?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return () => own;
}

/** The service's own exact figure for a search, through the route select-all uses. */
async function exactMatches(on: Served, word = WORD): Promise<number> {
  const { token } = (await (await fetch(`${on.url}/local/session`, { method: 'POST' })).json()) as { token: string };
  const headers = { Authorization: `Bearer ${token}` };
  const datasets = (await (await fetch(`${on.url}/local/datasets`, { headers })).json()) as {
    datasets: { uuid: string; name: string }[];
  };
  const uuid = datasets.datasets.find((d) => d.name === 'Synthetic Samples')!.uuid;
  const res = await fetch(`${on.url}/local/datasets/${uuid}/record-uuids?q=${encodeURIComponent(word)}&limit=1`, { headers });
  return ((await res.json()) as { total: number }).total;
}

async function openSynthetic(page: Page, on: Served) {
  await page.goto(on.url);
  await page
    .getByRole('navigation', { name: 'Datasets' })
    .getByRole('link', { name: /^Synthetic Samples/ })
    .first()
    .click();
  await expect(page.getByRole('heading', { level: 1, name: 'Synthetic Samples' })).toBeVisible();
}

/** Holds every exact-count request until `release` is called; the request then goes on unchanged. */
async function holdExactCounts(page: Page) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let held = 0;
  await page.route(
    (url) => url.pathname.endsWith('/records') && url.searchParams.get('count') === 'exact',
    async (route: Route) => {
      held++;
      await released;
      await route.continue();
    },
  );
  return { release, held: () => held };
}

test.describe('capped at 5 on 40 records', () => {
  const main = serveCapped(40, CAP);

  test('a search past the cap shows "5+" until the exact count arrives; select-all and export use the real figure', async ({ page }) => {
    const served = main();
    const gate = await holdExactCounts(page);
    await openSynthetic(page, served);
    await page.getByRole('searchbox', { name: 'Search records' }).fill(WORD);

    const count = page.getByTestId('match-count');
    const grid = page.getByRole('grid');
    await expect(count).toHaveText(`${CAP}+ of 40 match`);
    await expect.poll(gate.held).toBeGreaterThan(0);
    // The list holds the lower bound's rows meanwhile (a header row plus CAP).
    await expect(grid).toHaveAttribute('aria-rowcount', String(CAP + 1));
    await everyShot(page, 'search-count-capped', () => expect(count).toHaveText(`${CAP}+ of 40 match`));
    // Asked only now: an exact count, once made, is kept by the service for the view and answered instead.
    const exact = await exactMatches(served);
    expect(exact, 'the word must match more records than the cap').toBeGreaterThan(CAP);

    // Select-all asks the service for every uuid of the view: all matches, not the cap.
    await grid.getByRole('checkbox', { name: 'Select all records' }).click();
    await expect(page.getByRole('button', { name: `Delete selected (${exact})` })).toBeVisible();
    await grid.getByRole('checkbox', { name: 'Select all records' }).click();
    await expect(page.getByRole('button', { name: 'Delete selected' })).toBeVisible();
    // The export dialog does not promise a figure it does not have.
    await page.getByRole('button', { name: /^Export/ }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByRole('heading', { name: 'Export the records shown' })).toBeVisible();
    await page.keyboard.press('Escape');

    // The pane's position is a lower bound too; Next past it waits for the exact count (asked for
    // already: the last rows of the bound are in view), then moves on.
    const rows = grid.locator('[data-record]');
    await rows.nth(CAP - 1).click();
    const pane = page.getByRole('complementary', { name: /^Record / });
    const nav = pane.getByRole('group', { name: 'Move between records' });
    await expect(nav).toContainText(`${CAP} of ${CAP}+`);
    await everyShot(page, 'search-count-capped-pane', () => expect(nav).toContainText(`${CAP} of ${CAP}+`));
    await nav.getByRole('button', { name: 'Next record' }).click();
    await expect(nav).toContainText(`${CAP} of ${CAP}+`);

    gate.release();
    await expect(nav).toContainText(`${CAP + 1} of ${exact}`);
    await expect(rows.nth(CAP)).toHaveAttribute('aria-selected', 'true');
    await grid.focus();
    await page.keyboard.press('Escape');
    await expect(pane).toHaveCount(0);
    await expect(count).toHaveText(`${exact} of 40 match`);
    await expect(grid).toHaveAttribute('aria-rowcount', String(exact + 1));
    // The list grew to the figure: its last match is reachable.
    await grid.focus();
    await page.keyboard.press('End');
    await expect(grid.getByRole('row').last()).toBeVisible();
    await page.getByRole('button', { name: /^Export/ }).click();
    await expect(page.getByRole('dialog').getByRole('heading', { name: `Export ${exact} records` })).toBeVisible();
    await page.keyboard.press('Escape');

    // A search below the cap is exact at once: no second count is asked for.
    const asked = gate.held();
    const search = page.getByRole('searchbox', { name: 'Search records' });
    await search.fill('zzznomatch');
    await expect(count).toHaveText('0 of 40 match');
    expect(gate.held()).toBe(asked);

    // Deleting matches until fewer than the cap remain: the count and the list follow the service's
    // new answer, exact and unflagged, and not the exact figure kept from before — even while that
    // figure's own refetch is still out (held here).
    await search.fill(WORD);
    await expect(count).toHaveText(`${exact} of 40 match`);
    const late = await holdExactCounts(page);
    const left = CAP - 2;
    await rows.nth(0).click();
    await rows.nth(exact - left - 1).click({ modifiers: ['Shift'] });
    await page.getByRole('button', { name: `Delete selected (${exact - left})` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(count).toHaveText(`${left} of ${40 - exact + left} match`);
    await expect(grid).toHaveAttribute('aria-rowcount', String(left + 1));
    // The held refetch (if one was made), once answered, changes nothing.
    const out = late.held();
    const answered = out ? page.waitForResponse((r) => r.url().includes('count=exact')) : null;
    late.release();
    await answered;
    await expect(count).toHaveText(`${left} of ${40 - exact + left} match`);
    await expect(grid).toHaveAttribute('aria-rowcount', String(left + 1));
  });
});

// A Next past the lower bound waits for the exact count; a pick or a new search meanwhile replaces
// it, so the count's arrival must not move the selection. And an exact figure of an earlier search
// is not shown as exact when that search comes back after a change.
test.describe('capped at 5 on 40 records, across views', () => {
  const views = serveCapped(40, CAP);

  test('a Next waiting for the exact count does not move the selection after a pick or a new search', async ({ page }) => {
    const served = views();
    const grid = page.getByRole('grid');
    const rows = grid.locator('[data-record]');
    const count = page.getByTestId('match-count');
    const search = page.getByRole('searchbox', { name: 'Search records' });
    const pane = page.getByRole('complementary', { name: /^Record / });
    const nav = pane.getByRole('group', { name: 'Move between records' });
    await openSynthetic(page, served);

    // Next at the bound, then a click on row 2 before the count arrives.
    const gate = await holdExactCounts(page);
    await search.fill('olivine');
    await expect(count).toHaveText(`${CAP}+ of 40 match`);
    await rows.nth(CAP - 1).click();
    await expect(nav).toContainText(`${CAP} of ${CAP}+`);
    await nav.getByRole('button', { name: 'Next record' }).click();
    await expect.poll(gate.held).toBeGreaterThan(0);
    await rows.nth(1).click();
    await expect(nav).toContainText(`2 of ${CAP}+`);
    const olivine = await exactMatches(served, 'olivine');
    gate.release();
    await expect(count).toHaveText(`${olivine} of 40 match`);
    // The next step goes on from row 2 (not from row CAP + 1, where the old Next aimed).
    await nav.getByRole('button', { name: 'Next record' }).click();
    await expect(nav).toContainText(`3 of ${olivine}`);
    await expect(rows.nth(2)).toHaveAttribute('aria-selected', 'true');

    // Next at the bound, then a new search before the count arrives.
    const again = await holdExactCounts(page);
    await search.fill('crater');
    await expect(count).toHaveText(`${CAP}+ of 40 match`);
    // (The pane is closed first: a record left open would be found in the new view and made active.)
    await rows.nth(CAP - 1).click();
    await expect(nav).toContainText(`${CAP} of ${CAP}+`);
    await grid.focus();
    await page.keyboard.press('Escape');
    await expect(pane).toHaveCount(0);
    await expect.poll(again.held).toBeGreaterThan(0);
    await page.keyboard.press('Alt+ArrowDown');
    await expect(rows.nth(CAP - 1)).toHaveAttribute('aria-selected', 'true');
    await search.fill('sand');
    await expect(count).toHaveText(`${CAP}+ of 40 match`);
    const sand = await exactMatches(served, 'sand');
    again.release();
    await expect(count).toHaveText(`${sand} of 40 match`);
    // Alt+↓ goes on from the new search's first row, not from row CAP + 1 where the old Next aimed;
    // one row, from the search box as from the list (whose own ↓ must not move as well).
    await search.focus();
    await page.keyboard.press('Alt+ArrowDown');
    await expect(nav).toContainText(`2 of ${sand}`);
    await expect(rows.nth(1)).toHaveAttribute('aria-selected', 'true');
    await grid.focus();
    await page.keyboard.press('Alt+ArrowDown');
    await expect(nav).toContainText(`3 of ${sand}`);
    await expect(rows.nth(2)).toHaveAttribute('aria-selected', 'true');
  });

  test('an earlier search returned to after a delete shows its new count, not the exact figure kept from before', async ({ page }) => {
    const served = views();
    const grid = page.getByRole('grid');
    const count = page.getByTestId('match-count');
    const search = page.getByRole('searchbox', { name: 'Search records' });
    await openSynthetic(page, served);

    // The figures are read from the service only after the list asked for them itself: a count
    // made once is kept by the service and answered at once, and the list must ask its own.
    await search.fill('basalt');
    await expect(count).toHaveText(/^\d+ of 40 match$/);
    const basalt = await exactMatches(served, 'basalt');
    await expect(count).toHaveText(`${basalt} of 40 match`);
    // Another search (its own exact count asked), where one of basalt's matches is deleted.
    await search.fill('basalt ridge');
    await expect(count).toHaveText(/^\d+ of 40 match$/);
    const both = await exactMatches(served, 'basalt ridge');
    expect(both, 'the searches must share more matches than the cap').toBeGreaterThan(CAP);
    await expect(count).toHaveText(`${both} of 40 match`);
    await grid.locator('[data-record]').nth(0).click();
    await page.getByRole('button', { name: 'Delete selected (1)' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(count).toHaveText(`${both - 1} of 39 match`);

    await search.fill('basalt');
    await expect(count).toHaveText(`${basalt - 1} of 39 match`);
    await expect(grid).toHaveAttribute('aria-rowcount', String(basalt));
  });
});

// With a cap above NEAR_BOUND (200 rows) the exact count is asked only on demand: not at the top
// of the list, but once its last rows come into view (End).
test.describe('capped at 300 on 600 records', () => {
  const big = serveCapped(600, 300);

  test('the exact count is asked only when the end of the lower bound comes near', async ({ page }) => {
    const served = big();
    const grid = page.getByRole('grid');
    const count = page.getByTestId('match-count');
    await openSynthetic(page, served);

    const gate = await holdExactCounts(page);
    await page.getByRole('searchbox', { name: 'Search records' }).fill(WORD);
    await expect(count).toHaveText('300+ of 600 match');
    await expect(grid).toHaveAttribute('aria-rowcount', '301');
    await expect(grid.locator('[data-record]').first()).toBeVisible();
    // A round trip through the page after the rows rendered: any count asked on render is out by now.
    await grid.focus();
    await page.keyboard.press('ArrowDown');
    await expect(grid.locator('[data-record]').nth(1)).toHaveAttribute('aria-selected', 'true');
    expect(gate.held(), 'no exact count at the top of the list').toBe(0);

    await page.keyboard.press('End');
    await expect.poll(gate.held).toBeGreaterThan(0);
    gate.release();
    const exact = await exactMatches(served);
    expect(exact, 'the word must match more records than the cap').toBeGreaterThan(300);
    await expect(count).toHaveText(`${exact} of 600 match`);
    await expect(grid).toHaveAttribute('aria-rowcount', String(exact + 1));
  });
});

test.describe('capped at 300 on 600 records, counted on demand', () => {
  const big = serveCapped(600, 300);

  test('"Count all" beside a lower bound asks for the exact count and shows it', async ({ page }) => {
    const served = big();
    const count = page.getByTestId('match-count');
    const countAll = page.getByRole('button', { name: 'Count all' });
    await openSynthetic(page, served);
    await expect(countAll).toHaveCount(0);

    const gate = await holdExactCounts(page);
    await page.getByRole('searchbox', { name: 'Search records' }).fill(WORD);
    await expect(count).toHaveText('300+ of 600 match');
    expect(gate.held(), 'no exact count before it is asked').toBe(0);
    await countAll.click();
    await expect.poll(gate.held).toBeGreaterThan(0);
    gate.release();
    const exact = await exactMatches(served);
    await expect(count).toHaveText(`${exact} of 600 match`);
    await expect(countAll).toHaveCount(0);
  });
});
