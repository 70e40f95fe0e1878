import { expect, test } from '@playwright/test';
import { attempt, baseUrl } from './support/app.js';
import { everyShot } from './support/screens.js';

// A new user's walk: a user added with the password left empty got a random one nobody was
// shown, so the account could not be used. The panel now shows it once, with a Copy button.

test('a user added without a password: the generated one is shown once, copies, and signs them in', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
  await page.goto(baseUrl());
  await page.getByRole('banner').getByRole('button', { name: 'Users', exact: true }).click();
  const users = page.getByRole('complementary', { name: 'Users' });
  // An email no earlier run or try used: the seeded service keeps the users it is given.
  const email = `generated-${Date.now().toString(36)}-${attempt()}@e2e.local`;
  const form = users.getByRole('form', { name: 'Add a user' });
  await form.getByLabel('Email').fill(email);
  await form.getByRole('button', { name: 'Add user' }).click();

  const shown = users.getByRole('region', { name: `Password for ${email}` });
  await expect(shown).toBeVisible();
  const password = (await shown.getByTestId('generated-password').textContent())!;
  expect(password.length).toBeGreaterThanOrEqual(8);
  await expect(shown.getByRole('button', { name: 'Copy' }), 'copying is the next step').toBeFocused();
  await page.keyboard.press('Enter');
  await expect(shown.getByRole('status')).toHaveText('Copied.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(password);

  // It is the user's real password.
  const res = await fetch(`${baseUrl()}/api/v4/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: email, password }),
  });
  expect(res.status).toBe(200);

  await everyShot(page, 'generated-password', () => expect(shown).toBeVisible());
  // By keyboard: the focus goes on to the form's Email field (the next user), not to the page.
  await shown.getByRole('button', { name: 'Done' }).press('Enter');
  await expect(shown).toHaveCount(0);
  await expect(form.getByRole('textbox', { name: 'Email' })).toBeFocused();
  await expect(page.getByText(password)).toHaveCount(0);
});
