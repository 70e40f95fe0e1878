import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { apiToken, baseUrl, screenshot } from './support/app.js';
import { SYNTH_NAME } from './support/curate.js';
import { startServe, type Served } from './support/serve.js';
import { SYNTH } from '../bench/synthetic.js';

// A new user on the first-run screen generates a sample or imports an ODR export: once the job is
// done they land in the dataset it made, not on "Choose a dataset" with the Jobs panel open. Only
// while they are still on that screen: whoever opened something meanwhile stays there. Each test
// on its own empty data dir (the first-run screen shows only with no dataset).

const SAMPLE = 'Synthetic Samples';
let served: Served;
let dir: string;

test.beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'odr-e2e-welcome-'));
  served = await startServe(dir);
});
test.afterEach(async () => {
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const jobsPanel = (page: Page) => page.getByRole('complementary', { name: 'Jobs' });
const landed = async (page: Page, name: string) => {
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('grid').getByRole('row').nth(1)).toBeVisible();
};

test('Generate a sample dataset: the new dataset opens once it is made', async ({ page }) => {
  await page.goto(served.url);
  await expect(page.getByRole('heading', { level: 1, name: 'Welcome to odr-desktop' })).toBeVisible();
  await page.getByRole('button', { name: 'Generate a sample dataset' }).click();
  await landed(page, SAMPLE);
  await expect(page.getByRole('grid').getByRole('row', { name: SYNTH_NAME(0), exact: true })).toBeVisible();
  // The Jobs panel the start opened has done its work: it no longer covers the toolbar.
  await expect(jobsPanel(page)).toHaveCount(0);
  for (const size of [
    { width: 1024, height: 700 },
    { width: 1920, height: 1080 },
  ]) {
    await page.setViewportSize(size);
    await screenshot(page, `welcome-sample-landed-${size.width}x${size.height}`);
  }
});

test('Import an ODR export from the first-run screen: the imported dataset opens once it is in', async ({ page }) => {
  // A template export as any ODR server gives it: the shared e2e service's sample template.
  const res = await fetch(`${baseUrl()}/api/v4/template/${SYNTH.dataset}`, { headers: { Authorization: `Bearer ${await apiToken()}` } });
  expect(res.status).toBe(200);
  const body = Buffer.from(await res.text());

  await page.goto(served.url);
  await expect(page.getByRole('heading', { level: 1, name: 'Welcome to odr-desktop' })).toBeVisible();
  await page
    .getByLabel('ODR export to import')
    .first()
    .setInputFiles({ name: 'template.json', mimeType: 'application/json', buffer: body });
  await expect(page.getByRole('heading', { level: 1, name: SAMPLE })).toBeVisible({ timeout: 30_000 });
});

test('someone who opened a panel meanwhile keeps it and its focus when the sample lands', async ({ page }) => {
  await page.goto(served.url);
  await page.getByRole('combobox', { name: 'Sample size' }).selectOption('10000');
  await page.getByRole('button', { name: 'Generate a sample dataset' }).click();
  await expect(jobsPanel(page)).toBeVisible();
  await page.getByRole('banner').getByRole('button', { name: 'Trash' }).click();
  const trash = page.getByRole('complementary', { name: 'Trash' });
  await expect(trash.getByRole('heading', { name: 'Trash' })).toBeFocused();
  await landed(page, SAMPLE);
  await expect(page.getByRole('grid').getByRole('row', { name: SYNTH_NAME(0), exact: true })).toBeVisible();
  // Landing closed only what the start had opened (the Jobs panel), not what the person did.
  await expect(trash).toBeVisible();
  expect(await trash.evaluate((el) => el.contains(document.activeElement))).toBe(true);
});

test('the first-run screen connects to a lab server: the Sync panel opens at its form', async ({ page }) => {
  await page.goto(served.url);
  await page.getByRole('button', { name: 'Connect to an ODR server…' }).click();
  const sync = page.getByRole('complementary', { name: 'Sync' });
  await expect(sync.getByRole('form', { name: 'Add a remote' })).toBeVisible();
});

test('with datasets, "Choose a dataset" still offers an import, a server and a sample', async ({ page }) => {
  // The shared e2e service has datasets: the screen a returning user sees before picking one.
  await page.goto(baseUrl());
  const main = page.getByRole('main');
  await expect(main.getByRole('heading', { level: 1, name: 'Choose a dataset' })).toBeVisible();
  await expect(main.getByLabel('ODR export to import')).toHaveCount(1);
  await expect(main.getByRole('button', { name: 'Generate a sample dataset' })).toBeVisible();
  await expect(main.getByRole('combobox', { name: 'Sample size' })).toBeVisible();
  for (const size of [
    { width: 1024, height: 700 },
    { width: 1920, height: 1080 },
  ]) {
    await page.setViewportSize(size);
    await screenshot(page, `choose-dataset-actions-${size.width}x${size.height}`);
  }
  // Whether the panel shows its form depends on remotes other specs may add: the panel itself is the point.
  await main.getByRole('button', { name: 'Connect to an ODR server…' }).click();
  await expect(page.getByRole('complementary', { name: 'Sync' })).toBeVisible();
});
