import { expect, type Page } from '@playwright/test';
import { SYNTH } from '../../bench/synthetic.js';
import { apiToken, baseUrl, openDataset, openRecord, readRecord } from './app.js';

export const SYNTH_RECORD = SYNTH.record;
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

const authed = async (init: RequestInit = {}) => ({
  ...init,
  headers: { Authorization: `Bearer ${await apiToken()}`, 'Content-Type': 'application/json', ...init.headers },
});

/** Deletes records straight over HTTP, as another window or script would; answers the status. */
export async function deleteOverHttp(uuids: string[]): Promise<number> {
  const res = await fetch(`${baseUrl()}/api/v4/record`, await authed({ method: 'DELETE', body: JSON.stringify({ record_uuids: uuids }) }));
  return res.status;
}

/** Adds a small text file to a synthetic record's File field over HTTP, as a script would. */
export async function addFileOverHttp(uuid: string, name: string, text: string): Promise<void> {
  const form = new FormData();
  form.append('dataset_uuid', SYNTH.dataset);
  form.append('record_uuid', uuid);
  form.append('field_uuid', SYNTH.field('File'));
  form.append('file', new Blob([text], { type: 'text/plain' }), name);
  const res = await fetch(`${baseUrl()}/api/v4/file`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await apiToken()}` },
    body: form,
  });
  expect(res.ok, `upload of ${name}: ${res.status}`).toBe(true);
}

/** Holds the page's record DELETE requests until `release()`; `asked()` counts those held. */
export async function holdDeletes(page: Page) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let asked = 0;
  await page.route('**/api/v4/record', async (route) => {
    if (route.request().method() !== 'DELETE') return route.fallback();
    asked++;
    await held;
    await route.continue();
  });
  return { held, release, asked: () => asked };
}

/** Puts a deleted record back over HTTP (from the record trash); answers the status. */
export async function restoreOverHttp(uuid: string): Promise<number> {
  const res = await fetch(`${baseUrl()}/local/records/${uuid}/restore`, await authed({ method: 'POST' }));
  return res.status;
}

type Tree = { records?: { record_uuid: string; record_name: string }[] };
/** A synthetic record's child records, as the service has them now. */
export const childrenOf = async (i: number) => ((await readRecord(SYNTH_RECORD(i))).body as unknown as Tree).records ?? [];

/** In the in-app confirmation just opened: Tab from Cancel to the action, Enter. */
async function confirmByKeyboard(page: Page) {
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
}

/**
 * Opens synthetic record `i` and removes its first child record from the keyboard (Remove,
 * Tab to the dialog's Remove, Enter). `instead`: the control the focus should go to, the next
 * row's Open/Close, or Add when none is left.
 */
export async function removeFirstChild(page: Page, i: number) {
  const kids = await childrenOf(i);
  expect(kids.length).toBeGreaterThan(0);
  const [first, second] = kids;
  await openDataset(page, 'Synthetic Samples');
  const editor = await findAndOpen(page, SYNTH_NAME(i));
  const section = editor.getByRole('region', { name: 'Subsamples records' });
  await section.getByRole('button', { name: `Remove Subsamples record ${first!.record_name}` }).focus();
  await page.keyboard.press('Enter');
  await confirmByKeyboard(page);
  const instead = second
    ? section.getByRole('button', { name: new RegExp(`^(Open|Close) Subsamples record ${second.record_name}$`) })
    : section.getByRole('button', { name: 'Add Subsamples record' });
  return { kids, first: first!, section, instead };
}

/** Opens synthetic record `i` and deletes it with the pane's Delete record, from the keyboard; answers its notice. */
export async function deleteFromPane(page: Page, i: number) {
  await openDataset(page, 'Synthetic Samples');
  await findAndOpen(page, SYNTH_NAME(i));
  const pane = page.getByRole('complementary', { name: `Record ${SYNTH_NAME(i)}` });
  await pane.getByRole('button', { name: 'Delete record' }).focus();
  await page.keyboard.press('Enter');
  await confirmByKeyboard(page);
  const notice = page.getByRole('region', { name: 'Messages' }).getByText(/^Deleted this record/);
  await expect(notice).toBeVisible();
  return notice;
}
