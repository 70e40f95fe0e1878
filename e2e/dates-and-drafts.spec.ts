import { expect, test } from '@playwright/test';
import { field, openDataset, readRecord } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD, findAndOpen } from './support/curate.js';

// Issue #11 items 5, 6 and 7 (UI side): times in the user's zone, drafts that are not lost,
// decimals typed the locale's way, and publishing that keeps the original public date.

const valueOf = async (i: number, name: string) =>
  (await readRecord(SYNTH_RECORD(i))).body.fields.find((f) => f.field_name === name)?.value ?? null;

test.describe('west of UTC (America/Denver)', () => {
  test.use({ timezoneId: 'America/Denver', locale: 'en-US' });

  test('a public date is typed in local time, stored in UTC and shown local with the zone named', async ({ page }) => {
    await openDataset(page, 'Synthetic Samples');
    const editor = await findAndOpen(page, SYNTH_NAME(21));
    const makePrivate = editor.getByRole('button', { name: 'Make private' });
    if (await makePrivate.isEnabled()) await makePrivate.click();
    await expect(editor.getByTestId('public-state')).toHaveText('Private');
    // 05:06 on 4 March 2031 in Denver (MST, UTC-7) is 12:06 UTC.
    await editor.getByLabel('Public from date').fill('2031-03-04T05:06');
    await editor.getByRole('button', { name: 'Set date' }).click();
    await expect(editor.getByTestId('public-state')).toHaveText('Scheduled: public from 2031-03-04 05:06 MST');
    expect((await readRecord(SYNTH_RECORD(21))).body._record_metadata._public_date).toBe('2031-03-04 12:06:00');
    await expect(editor.getByTestId('public-state')).toHaveAttribute('title', /Mountain Standard Time \(2031-03-04 12:06 UTC\)/);
  });

  test('"Make public now" on a record already public keeps its original public date', async ({ page }) => {
    await openDataset(page, 'Synthetic Samples');
    const editor = await findAndOpen(page, SYNTH_NAME(22));
    const before = (await readRecord(SYNTH_RECORD(22))).body._record_metadata._public_date;
    expect(before).toBe('2025-01-01 00:00:00');
    await expect(editor.getByTestId('public-state')).toHaveText('Public since 2024-12-31 17:00 MST');
    const now = editor.getByRole('button', { name: 'Make public now' });
    await expect(now).toBeDisabled();
    await now.click({ force: true });
    expect((await readRecord(SYNTH_RECORD(22))).body._record_metadata._public_date).toBe(before);
  });
});

test.describe('a locale that writes decimals with a comma (de-DE)', () => {
  test.use({ locale: 'de-DE' });

  test('"1,5" is accepted and stored as 1.5', async ({ page }) => {
    await openDataset(page, 'Synthetic Samples');
    const editor = await findAndOpen(page, SYNTH_NAME(23));
    const box = field(editor, 'Decimal field').getByRole('textbox');
    await box.fill('1,5');
    await expect(field(editor, 'Decimal field').getByRole('alert')).toHaveCount(0);
    await box.press('Enter');
    await expect(field(editor, 'Decimal field').getByRole('status')).toHaveText('Saved');
    await expect.poll(() => valueOf(23, 'Decimal field')).toBe('1.5');
  });
});

test.describe('a locale that writes decimals with a point (en-US)', () => {
  test.use({ locale: 'en-US' });

  test('"1,5" is refused there (a comma groups thousands) and nothing is saved', async ({ page }) => {
    await openDataset(page, 'Synthetic Samples');
    const editor = await findAndOpen(page, SYNTH_NAME(24));
    const before = await valueOf(24, 'Decimal field');
    const box = field(editor, 'Decimal field').getByRole('textbox');
    await box.fill('1,5');
    await expect(field(editor, 'Decimal field').getByRole('alert')).toContainText('is not a decimal number');
    await box.press('Enter');
    await expect(field(editor, 'Decimal field').getByRole('status')).toHaveText('Not saved');
    expect(await valueOf(24, 'Decimal field')).toEqual(before);
  });

  test('an invalid number shows "Not saved", and leaving the record keeps the draft', async ({ page }) => {
    await openDataset(page, 'Synthetic Samples');
    let editor = await findAndOpen(page, SYNTH_NAME(25));
    // A save first, so the badge has said "Saved" before the bad input.
    let box = field(editor, 'Integer field').getByRole('textbox');
    await box.fill('41');
    await box.press('Enter');
    await expect(field(editor, 'Integer field').getByRole('status')).toHaveText('Saved');
    await box.fill('12abc');
    await expect(field(editor, 'Integer field').getByRole('alert')).toContainText('"12abc" is not an integer');
    await expect(field(editor, 'Integer field').getByRole('status')).toHaveText('Not saved');
    await box.blur();
    await expect(field(editor, 'Integer field').getByRole('status')).toHaveText('Not saved');

    // Leaving the record keeps the typed text (and says so); coming back shows it again.
    await findAndOpen(page, SYNTH_NAME(26));
    await expect(page.getByRole('status').filter({ hasText: `${SYNTH_NAME(25)}: 1 field not saved` })).toBeVisible();
    editor = await findAndOpen(page, SYNTH_NAME(25));
    box = field(editor, 'Integer field').getByRole('textbox');
    await expect(box).toHaveValue('12abc');
    await expect(field(editor, 'Integer field').getByRole('status')).toHaveText('Not saved');
    expect(await valueOf(25, 'Integer field')).toBe(41);

    await box.fill('12');
    await box.press('Enter');
    await expect(field(editor, 'Integer field').getByRole('status')).toHaveText('Saved');
    await expect.poll(() => valueOf(25, 'Integer field')).toBe(12);
  });
});
