import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Locator } from '@playwright/test';
import { startServe, type Served } from './support/serve.js';

// A large sample (or import) puts its dataset in within a second, then fills it for minutes: the
// sidebar lists the dataset while the job still runs, and its record count grows with the job's
// progress (the list is refreshed on progress events, at most every ~2 s), not only once it ends.
// On its own empty data dir. The sample must outlive what the spec waits for (the grown count,
// about 3 s in, and 2.5 s of progress events): the largest the app offers, 2,000,000 records,
// runs over 100 s at the about 15,000 records/s of an idle machine here, 20x what the spec needs,
// where the 100,000 it took before (6.7 s) failed on a machine 2x faster. Whether it still runs is
// checked at each step, not assumed. The spec does not wait for the end: the stop in afterEach
// tells the job to stop (as at any closing) and waits for the service to exit.

const SIZE = 2_000_000;
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
  // The list's reads while the job's progress events arrive (every 100 ms): throttled, not one per
  // event. Both are timed by the browser's network clock, so a slow machine delays both alike.
  const progress: number[] = [];
  const reads: number[] = [];
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  cdp.on('Network.eventSourceMessageReceived', (e) => {
    const job = JSON.parse(e.data) as { job_type?: string; state?: string };
    if (e.eventName === 'job' && job.job_type === 'sample' && job.state === 'running') progress.push(e.timestamp * 1000);
  });
  cdp.on('Network.requestWillBeSent', (e) => {
    if (e.request.method === 'GET' && new URL(e.request.url).pathname === '/local/datasets') reads.push(e.timestamp * 1000);
  });
  await page.goto(served.url);
  await page.getByRole('combobox', { name: 'Sample size' }).selectOption(String(SIZE));
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
  expect(first).toBeLessThan(SIZE);
  // Polled every 100 ms, so the job is still running when the grown count is seen.
  await expect.poll(() => countIn(listed), { timeout: 15_000, intervals: [100] }).toBeGreaterThan(first);
  const grewAt = Date.now() - t0;
  const second = await countIn(listed);
  const stillRunning = await running.count();
  console.log(`listed after ${seenAt} ms with ${first} records; ${second} after ${grewAt} ms; running: ${stillRunning}`);
  expect(stillRunning).toBe(1);
  // From the first progress event to the last one so far: one read at the first, then at most
  // one per 2 s; the events waited for until they span 2.5 s (a read at 0 and at 2 s).
  const span = () => (progress.length ? progress.at(-1)! - progress[0]! : 0);
  await expect.poll(span, { timeout: 15_000, intervals: [100] }).toBeGreaterThan(2500);
  expect(await running.count(), 'the sample ended before 2.5 s of its progress events were seen').toBe(1);
  const [from, to] = [progress[0]!, progress.at(-1)!];
  const during = reads.filter((t) => t >= from && t <= to).length;
  console.log(`${progress.length} progress events over ${Math.round(to - from)} ms; datasets list read ${during} times meanwhile`);
  expect(during).toBeLessThanOrEqual(Math.ceil((to - from) / 2000) + 1);
});
