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
let served: Served;
let dir: string;

test.describe.configure({ timeout: 180_000 });

test.beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'odr-e2e-count-'));
  const seed = spawnSync(process.execPath, ['--import', 'tsx', 'e2e/support/seed.ts', dir, '40'], { cwd: ROOT, encoding: 'utf8' });
  if (seed.status !== 0) throw new Error(`seeding failed:\n${seed.stdout}\n${seed.stderr}`);
  served = await startServe(dir, [], { ODR_COUNT_CAP: String(CAP) });
});
test.afterAll(async () => {
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The service's own exact figure, through the route select-all uses. */
async function exactMatches(): Promise<number> {
  const { token } = (await (await fetch(`${served.url}/local/session`, { method: 'POST' })).json()) as { token: string };
  const headers = { Authorization: `Bearer ${token}` };
  const datasets = (await (await fetch(`${served.url}/local/datasets`, { headers })).json()) as {
    datasets: { uuid: string; name: string }[];
  };
  const uuid = datasets.datasets.find((d) => d.name === 'Synthetic Samples')!.uuid;
  const res = await fetch(`${served.url}/local/datasets/${uuid}/record-uuids?q=${WORD}&limit=1`, { headers });
  return ((await res.json()) as { total: number }).total;
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

test('a search past the cap shows "5+" until the exact count arrives; select-all and export use the real figure', async ({ page }) => {
  const gate = await holdExactCounts(page);
  await page.goto(served.url);
  await page
    .getByRole('navigation', { name: 'Datasets' })
    .getByRole('link', { name: /^Synthetic Samples/ })
    .first()
    .click();
  await expect(page.getByRole('heading', { level: 1, name: 'Synthetic Samples' })).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search records' }).fill(WORD);

  const count = page.getByTestId('match-count');
  const grid = page.getByRole('grid');
  await expect(count).toHaveText(`${CAP}+ of 40 match`);
  await expect.poll(gate.held).toBeGreaterThan(0);
  // The list holds the lower bound's rows meanwhile (a header row plus CAP).
  await expect(grid).toHaveAttribute('aria-rowcount', String(CAP + 1));
  await everyShot(page, 'search-count-capped', () => expect(count).toHaveText(`${CAP}+ of 40 match`));
  // Asked only now: an exact count, once made, is kept by the service for the view and answered instead.
  const exact = await exactMatches();
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
  late.release();
  await expect(count).toHaveText(`${left} of ${40 - exact + left} match`);
});
