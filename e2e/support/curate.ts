import { expect, type Page } from '@playwright/test';
import { openRecord } from './app.js';

export const SYNTH_RECORD = (i: number) => `e${String(i).padStart(27, '0')}`;
export const SYNTH_NAME = (i: number) => `S-${String(i).padStart(6, '0')}`;

/**
 * Opens a record wherever it sits in the list: other specs add thousands of records to the same
 * dataset, so a row is found through the search box rather than by scrolling.
 */
export async function findAndOpen(page: Page, name: string) {
  const search = page.getByRole('searchbox', { name: 'Search records' });
  await search.fill(name);
  // The header row and exactly the one match: the filtered list has replaced the full one.
  await expect(page.getByRole('grid').getByRole('row')).toHaveCount(2);
  await expect(page.getByRole('grid').getByRole('row', { name, exact: true })).toBeVisible();
  return openRecord(page, name);
}
