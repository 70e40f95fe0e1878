import { expect, test, type Page } from '@playwright/test';
import { SYNTH, syntheticTemplate } from '../bench/synthetic.js';
import type { FieldTypeName } from '../shared/fieldTypes.js';
import { apiToken, baseUrl, openDataset } from './support/app.js';
import { everyShot } from './support/screens.js';

// Issue #14: the Import CSV dialog — columns mapped to fields (guessed, editable), a preview of
// the first rows and of every row that would fail, then the import job with its progress.
// It works on a dataset of its own (removed afterwards), so other specs see their data unchanged.

const NAME = 'CSV Samples';
const KEEP: FieldTypeName[] = ['Short Text', 'Integer', 'Decimal', 'DateTime', 'Single Radio', 'Multiple Select'];
/** The synthetic template's uuids with another first letter pair, so both can live side by side. */
const own = (u: string) => `c5${u.slice(2)}`;
let dataset = '';

async function local(path: string, init: RequestInit = {}) {
  const res = await fetch(`${baseUrl()}${path}`, { ...init, headers: { Authorization: `Bearer ${await apiToken()}`, ...init.headers } });
  expect(res.ok, `${path}: ${res.status}`).toBe(true);
  const text = await res.text();
  return (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, unknown>;
}

test.beforeAll(async () => {
  const t = syntheticTemplate();
  const fields = t.fields
    .filter((f) => KEEP.includes(f.fieldtype as FieldTypeName))
    .map((f, i) => ({
      ...f,
      internal_id: 7001 + i,
      field_uuid: own(f.field_uuid as string),
      radio_options: (f.radio_options as { template_radio_option_uuid: string }[] | undefined)?.map((o) => ({
        ...o,
        template_radio_option_uuid: own(o.template_radio_option_uuid),
      })),
    }));
  dataset = own(SYNTH.dataset);
  const template = { ...t, internal_id: 701, name: NAME, template_uuid: dataset, fields, related_databases: [] };
  const fd = new FormData();
  fd.append('file', new Blob([JSON.stringify(template)]), 'csv-samples.json');
  const job = await local('/local/import', { method: 'POST', body: fd });
  await expect
    .poll(async () => ((await local('/local/jobs')).jobs as { id: number; state: string }[]).find((j) => j.id === job.id)?.state)
    .toBe('complete');
  // One record, so the dataset opens on a list.
  await local(`/api/v4/dataset/${dataset}/record`, { method: 'POST' });
});

test.afterAll(async () => {
  if (dataset) await local(`/api/v4/dataset/${dataset}`, { method: 'DELETE' });
});

/** 2,000 good rows and two bad ones; the weight column has no field of its name. */
function csvFile(): Buffer {
  const lines = ['Sample ID,Integer field,Weight,DateTime field,Single Radio field,Multiple Select field'];
  for (let i = 0; i < 2000; i++) {
    lines.push(
      `CSV-${i},${i},${(i / 3).toFixed(2)},2021-03-${String(1 + (i % 28)).padStart(2, '0')},Single Radio option ${1 + (i % 3)},Multiple Select option 1;Multiple Select option ${2 + (i % 4)}`,
    );
    if (i === 1) lines.push('CSV-bad-1,twelve,1.5,2021-02-30,Single Radio option 2,');
    if (i === 1500) lines.push('CSV-bad-2,5,2.5,2021-01-01,Single Radio option 7,Multiple Select option 1');
  }
  return Buffer.from(lines.join('\n'));
}

const dialog = (page: Page) => page.getByRole('dialog', { name: `Import CSV into ${NAME}` });

test('Import CSV: mapping, preview with the failing rows, import job with progress', async ({ page }) => {
  test.setTimeout(240_000);
  await openDataset(page, NAME);
  await page.getByRole('button', { name: 'Import CSV…' }).click();
  await expect(dialog(page)).toBeVisible();
  await dialog(page)
    .getByLabel(/CSV file/)
    .setInputFiles({ name: 'samples.csv', mimeType: 'text/csv', buffer: csvFile() });

  // Columns guessed from the header; the one without a matching field is left out until mapped.
  const column = (name: string) => dialog(page).getByRole('combobox', { name: new RegExp(`^${name}`) });
  await expect(column('Sample ID')).toHaveValue(own(SYNTH.field('Short Text')));
  await expect(column('Single Radio field')).toHaveValue(own(SYNTH.field('Single Radio')));
  await expect(column('Weight')).toHaveValue('');
  await expect(dialog(page).getByTestId('csv-summary')).toHaveText(
    '2,002 rows: 2,000 will be imported, 2 fail (listed below; they are left out).',
  );
  await column('Weight').selectOption({ label: 'Decimal field (Decimal)' });
  await expect(column('Weight')).toHaveValue(own(SYNTH.field('Decimal')));
  await expect(column('Weight')).toBeEnabled();

  // The first rows and every failing row with its reason.
  const rowsTable = dialog(page).getByRole('region', { name: 'First rows of the file' });
  await expect(rowsTable.getByRole('row')).toHaveCount(21);
  await expect(rowsTable.getByRole('columnheader', { name: 'Decimal field' })).toBeVisible();
  const failures = dialog(page).getByRole('region', { name: 'Rows that fail' });
  await expect(failures.getByRole('row')).toHaveCount(4);
  await expect(failures.getByRole('row').nth(1).getByRole('cell')).toHaveText([
    '4',
    'Integer field',
    'Invalid Integer value: "twelve" is not an integer',
  ]);
  await expect(failures.getByRole('row').nth(2).getByRole('cell')).toHaveText([
    '4',
    'DateTime field',
    'Invalid DateTime value: "2021-02-30" is not a calendar date',
  ]);
  await expect(failures.getByRole('row').nth(3).getByRole('cell')).toContainText([
    '1504',
    'Single Radio field',
    '"Single Radio option 7" is not an option',
  ]);
  await everyShot(page, 'i-import-csv-preview');

  // The import runs as a job: progress here and in the Jobs panel, then the refused rows.
  await dialog(page).getByRole('button', { name: 'Import 2,000 rows' }).click();
  await expect(dialog(page).getByRole('progressbar', { name: 'CSV import progress' })).toBeVisible();
  await expect(dialog(page).getByTestId('csv-job-status')).toHaveText('Imported 2,000 of 2,002 rows; 2 refused.', { timeout: 120_000 });
  await expect(dialog(page).getByRole('region', { name: 'Rows that fail' }).getByRole('row')).toHaveCount(4);
  await everyShot(page, 'j-import-csv-done');
  await dialog(page).getByRole('button', { name: 'Close' }).click();
  await expect(dialog(page)).toHaveCount(0);
  await expect(
    page
      .getByRole('heading', { level: 1, name: NAME })
      .locator('..')
      .getByText(/2,001 records/),
  ).toBeVisible();

  await page.getByRole('button', { name: /^Jobs/ }).click();
  const job = page.getByRole('complementary', { name: 'Jobs' }).locator('li', { hasText: 'CSV import' }).first();
  await expect(job).toContainText(NAME);
  await expect(job).toContainText('Finished');
  // Once the dialog is closed, Jobs still says what was refused and lists those rows.
  await expect(job.getByTestId('csv-job-outcome')).toContainText('2,000 imported · 2 refused');
  await job.getByText('Show the 2 refused rows').click();
  const refused = job.getByRole('region', { name: 'Rows that fail' });
  await expect(refused.getByRole('row')).toHaveCount(4);
  await expect(refused.getByRole('row').nth(1).getByRole('cell')).toHaveText([
    '4',
    'Integer field',
    'Invalid Integer value: "twelve" is not an integer',
  ]);
  // Every job kind has its label: no entry shows a raw type such as "sample" or "import_csv".
  const kinds = await page.getByRole('complementary', { name: 'Jobs' }).locator('.job-head strong').allInnerTexts();
  expect(kinds.length).toBeGreaterThan(0);
  for (const k of kinds) expect(k, 'a job kind without a label').not.toMatch(/^[a-z_]+$/);
  await everyShot(page, 'k-jobs-csv-refused');
});
