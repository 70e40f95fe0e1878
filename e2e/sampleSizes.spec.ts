import { expect, test } from '@playwright/test';
import { baseUrl } from './support/app.js';

// A new user's walk: the sample sizes jumped from 500 to 10,000. POST /local/sample takes any
// count from 1 to 2,000,000 (test/api/sample.test.ts), so 2,000 is offered too.
test('the sample sizes offered include 2,000, in order', async ({ page }) => {
  await page.goto(baseUrl());
  const size = page.getByRole('main').getByRole('combobox', { name: 'Sample size' });
  await expect(size).toBeVisible();
  const options = await size.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
  expect(options).toEqual(['500', '2000', '10000', '100000', '1000000', '2000000']);
  await size.selectOption('2000');
  await expect(size).toHaveValue('2000');
});
