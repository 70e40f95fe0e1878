import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Locator, type Page } from '@playwright/test';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SCREENS = path.join(ROOT, 'e2e', 'output', 'screens');
/** The seeded service of the running spec's project (playwright.config.ts deals specs to them). */
export const baseUrl = () => process.env[`ODR_E2E_URL_${(test.info().project.metadata as { service: number }).service}`]!;

/** Which try of which repeat this is ("0.0" first): for texts that must differ from an earlier try's. */
export const attempt = () => `${test.info().repeatEachIndex}.${test.info().retry}`;

/** The real ODR exports are outside the repository; tests that need them say so and skip. */
export const haveFixtures = () => existsSync(path.resolve(ROOT, '../shared/fixtures/odr-real/chemin_data.json'));
export const NO_FIXTURES =
  'skipped: ../shared/fixtures/odr-real (the reference kit beside the repository) is absent, so the CheMin dataset is not loaded';

export async function screenshot(page: Page, name: string) {
  mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`) });
}

/** `url`: another service than the shared one, or an address with test switches (?maxScrollPx). */
export async function openDataset(page: Page, name: string, url = baseUrl()) {
  await page.goto(url);
  await page
    .getByRole('navigation', { name: 'Datasets' })
    .getByRole('link', { name: new RegExp(`^${name}`) })
    // The dataset itself: its child datasets ("CheMin-References") are listed after it.
    .first()
    .click();
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
  // A row with its record, not the "…" a row shows until its page of records arrives (the count
  // comes first): under load a spec that read or clicked that row went on with no record in it.
  await expect(page.getByRole('grid').getByRole('row').nth(1)).toHaveAttribute('aria-label');
}

export async function openRecord(page: Page, rowName: string) {
  await page.getByRole('row', { name: rowName, exact: true }).dblclick();
  await expect(page.getByRole('complementary', { name: `Record ${rowName}` })).toBeVisible();
  return page.getByRole('complementary', { name: `Record ${rowName}` });
}

/** The editor's control for a field, found through the field's visible name. */
export function field(editor: Locator, name: string): Locator {
  return editor.locator('.field', { has: editor.page().locator('.field-name', { hasText: new RegExp(`^${name}$`) }) });
}

/** A token for checking what the service stored, straight over HTTP. */
export async function apiToken(): Promise<string> {
  const res = await fetch(`${baseUrl()}/local/session`, { method: 'POST' });
  return ((await res.json()) as { token: string }).token;
}

export async function readRecord(uuid: string) {
  const res = await fetch(`${baseUrl()}/api/v4/dataset/record/${uuid}`, { headers: { Authorization: `Bearer ${await apiToken()}` } });
  return {
    status: res.status,
    body: (await res.json()) as {
      fields: {
        field_name: string;
        value?: unknown;
        values?: { name: string }[];
        tags?: { name: string }[];
        files?: { file_uuid: string; original_name: string }[];
      }[];
      _record_metadata: { _public_date: string };
    },
  };
}

/**
 * Clicks a checkbox or radio and answers `checked` before any timer or frame can run: what React
 * left after the click's own event (a controlled input whose state comes later is put back).
 */
export const checkedRightAfterClick = (input: Locator) =>
  input.evaluate((el: HTMLInputElement) => {
    el.click();
    return el.checked;
  });
