import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Locator } from '@playwright/test';
import { startServe, type Served } from './support/serve.js';

// A large sample (or import) puts its dataset in within a second, then fills it for minutes: the
// sidebar lists the dataset while the job still runs, and its record count grows with the job's
// progress (the list is refreshed on progress events, at most every ~2 s), not only once it ends.
// On its own empty data dir: a 100,000-record sample runs for tens of seconds; it is cancelled once
// the count has grown.

let served: Served;
let dir: string;
test.beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'odr-e2e-growing-'));
  served = await startServe(dir);
});
test.afterEach(async () => {
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The record count the sidebar shows for a dataset ("12,345 records"). */
const countIn = async (link: Locator) => Number(/([\d,]+) records?/.exec((await link.textContent()) ?? '')?.[1]?.replace(/,/g, '') ?? NaN);

test('a running sample is listed in the sidebar before it ends, its record count growing', async ({ page }) => {
  // The list's reads: throttled, not one per progress event (those come every 100 ms).
  const reads: number[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/local/datasets') reads.push(Date.now());
  });
  await page.goto(served.url);
  await page.getByRole('combobox', { name: 'Sample size' }).selectOption('100000');
  await page.getByRole('button', { name: 'Generate a sample dataset' }).click();
  const jobs = page.getByRole('complementary', { name: 'Jobs' });
  const running = jobs.getByRole('button', { name: 'Cancel' });
  await expect(running).toBeVisible();
  const t0 = Date.now();

  const listed = page.getByRole('navigation', { name: 'Datasets' }).getByRole('link', { name: /Synthetic Samples/ });
  await expect(listed).toBeVisible({ timeout: 30_000 });
  const seenAt = Date.now() - t0;
  // Read at once, not waited for: the job has not ended when its dataset shows.
  expect(await running.count()).toBe(1);
  const first = await countIn(listed);
  expect(first).toBeLessThan(100_000);
  await expect.poll(() => countIn(listed), { timeout: 15_000 }).toBeGreaterThan(first);
  const grewAt = Date.now() - t0;
  const second = await countIn(listed);
  const stillRunning = await running.count();
  console.log(`listed after ${seenAt} ms with ${first} records; ${second} after ${grewAt} ms; running: ${stillRunning}`);
  expect(stillRunning).toBe(1);
  const during = reads.filter((t) => t >= t0);
  console.log(`datasets list read ${during.length} times in ${Date.now() - t0} ms of the job`);
  expect(during.length).toBeLessThanOrEqual(Math.ceil((Date.now() - t0) / 2000) + 1);
  // The rest would take most of a minute on a loaded machine: stopped here.
  await running.click();
  await expect(running).toHaveCount(0);
});
