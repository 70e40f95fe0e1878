import { expect, test, type Page } from '@playwright/test';
import { apiToken, baseUrl, openDataset } from './support/app.js';
import { everyShot } from './support/screens.js';
import { SYNTH } from '../bench/synthetic.js';

// QA defect 7, the search box: a quoted name finds that record alone, words joined by a hyphen
// are a phrase, and a search that only excludes says why in the list instead of showing nothing.

test.describe.configure({ timeout: 180_000 });

const DATASET = SYNTH.dataset;
const count = (page: Page) => page.getByTestId('match-count');
const box = (page: Page) => page.getByRole('searchbox', { name: 'Search records' });

/** The service's own figure for a search: what the count must show. */
async function matching(q: string): Promise<number> {
  const res = await fetch(`${baseUrl()}/local/datasets/${DATASET}/record-uuids?limit=1&q=${encodeURIComponent(q)}`, {
    headers: { Authorization: `Bearer ${await apiToken()}` },
  });
  expect(res.status, q).toBe(200);
  return ((await res.json()) as { total: number }).total;
}

test('phrases and exclusions in the search box; an exclusion alone is explained', async ({ page }) => {
  await openDataset(page, 'Synthetic Samples');
  await expect(box(page)).toHaveAttribute('title', /"two words" finds a phrase; -word leaves out/);
  const all = await matching('');
  const shows = async (q: string) => {
    await box(page).fill(q);
    const want = await matching(q);
    await expect(count(page)).toHaveText(`${want.toLocaleString('en-US')} of ${all.toLocaleString('en-US')} match`);
    return want;
  };
  // S-000010…S-000019: the hyphenated name is a prefix phrase; the quoted one is exact.
  const typed = await shows('S-00001');
  expect(typed).toBeGreaterThan(1);
  expect(await shows('"S-000010"')).toBe(1);
  expect(await shows('S-00001 -"S-000010"')).toBe(typed - 1);

  // A refusal answers the same every time: it is shown at once, not asked again first.
  const refusals = new Map<string, number>();
  page.on('response', (r) => {
    if (r.status() === 400 && r.url().includes('q=-S-000010')) refusals.set(r.url(), (refusals.get(r.url()) ?? 0) + 1);
  });
  await box(page).fill('-S-000010');
  const alert = page.getByTestId('search-error');
  await expect(alert).toContainText('A search needs a word to find');
  expect(refusals.size).toBeGreaterThan(0);
  expect(
    [...refusals.values()].every((n) => n === 1),
    JSON.stringify([...refusals]),
  ).toBe(true);
  await expect(alert).toContainText('-S-000010 only excludes records');
  // Said to a screen reader at once, from a live region outside the grid (a grid owns rows only).
  const announced = page.getByRole('alert').filter({ hasText: /^Search refused: / });
  await expect(announced).toHaveText(/^Search refused: A search needs a word to find.*-S-000010 only excludes records/);
  expect(await announced.evaluate((el) => el.closest('[role=grid]'))).toBeNull();
  // Nothing matches a refused search: no figure kept from the search before.
  await expect(count(page)).toHaveText(`0 of ${all.toLocaleString('en-US')} match`);
  await everyShot(page, 'search-only-excludes', () => expect(alert).toBeVisible());
  await box(page).fill('');
  await expect(alert).toHaveCount(0);
  await expect(announced).toHaveCount(0);
  await expect(count(page)).toHaveText(`${all.toLocaleString('en-US')} records`);
});
