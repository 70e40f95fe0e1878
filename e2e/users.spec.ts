import { expect, test, type Page } from '@playwright/test';
import { apiToken, baseUrl, openDataset } from './support/app.js';
import { everyShot } from './support/screens.js';

// Issue #14: a super-user's Users screen (add a user, grant and revoke a dataset role, each
// change confirmed in-app), deleting a dataset behind a confirmation that names what goes, and
// the Trash that brings it back. Keyboard only where a person would type; axe-clean screens.

let token = '';
const api = (path: string, init: RequestInit = {}) =>
  fetch(`${baseUrl()}${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, ...init.headers } });

test.beforeAll(async () => {
  token = await apiToken();
  const list = (await (await api('/local/datasets')).json()) as { datasets: { uuid: string; name: string }[] };
  const template = list.datasets.find((d) => d.name === 'Synthetic Samples')!.uuid;
  for (const name of ['Doomed samples', 'Shared samples']) {
    if (list.datasets.some((d) => d.name === name)) continue;
    const res = await api('/api/v4/dataset', {
      method: 'POST',
      body: new URLSearchParams({ template_uuid: template, dataset_name: name }),
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
  }
});

const panel = (page: Page, name: string) => page.getByRole('complementary', { name });

test.describe('users, roles and the trash', () => {
  test.describe.configure({ timeout: 180_000 });

  test('a super-user adds a user and grants and revokes a role, confirming each change', async ({ page }) => {
    await page.goto(baseUrl());
    await page.getByRole('button', { name: 'Users' }).focus();
    await page.keyboard.press('Enter');
    const users = panel(page, 'Users');
    await expect(users).toBeVisible();
    await users.getByLabel('Email').fill('reader@example.org');
    await users.getByLabel('First name').fill('Rita');
    await users.getByLabel('Last name').fill('Reader');
    await users.getByLabel('Last name').press('Enter');
    const row = users.getByRole('listitem').filter({ has: page.getByRole('heading', { name: /reader@example\.org/ }) });
    await expect(row).toBeVisible();
    await expect(row).toContainText('No dataset roles.');

    await row.getByLabel('Dataset', { exact: true }).selectOption({ label: 'Shared samples' });
    await row.getByLabel('Role', { exact: true }).selectOption({ label: 'Edit all records' });
    await row.getByRole('button', { name: 'Grant' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Grant role' });
    await expect(dialog).toContainText('reader@example.org gets “Edit all records” on “Shared samples”');
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect(row.getByRole('list', { name: 'Roles of reader@example.org' })).toContainText('Shared samples: Edit all records');
    const listed = (await (await api('/local/users')).json()) as { users: { email: string; roles: { role: string }[] }[] };
    expect(listed.users.find((u) => u.email === 'reader@example.org')!.roles.map((r) => r.role)).toEqual(['edit']);
    await everyShot(page, 'u-users', async () => {
      await expect(users).toBeVisible();
    });

    await row.getByRole('button', { name: /Revoke Shared samples role/ }).click();
    await expect(page.getByRole('dialog', { name: 'Revoke role' })).toBeVisible();
    await everyShot(page, 'u-revoke-confirm');
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await expect(row).toContainText('No dataset roles.');
    // The Revoke button went with the role: the focus goes on to granting one, not to the page.
    await expect(row.getByLabel('Dataset', { exact: true })).toBeFocused();
  });

  test('a new user gets a password and super-user status; both change later, each confirmed', async ({ page }) => {
    const login = async (password: string) =>
      (
        await fetch(`${baseUrl()}/api/v4/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ username: 'keeper@example.org', password }),
        })
      ).status;
    const superOf = async () => {
      const listed = (await (await api('/local/users')).json()) as { users: { email: string; super_user: boolean }[] };
      return listed.users.find((u) => u.email === 'keeper@example.org')?.super_user;
    };
    await page.goto(baseUrl());
    await page.getByRole('button', { name: 'Users' }).click();
    const users = panel(page, 'Users');
    const form = users.getByRole('form', { name: 'Add a user' });
    await form.getByLabel('Email').fill('keeper@example.org');
    await form.getByLabel(/^Password/).fill('short');
    // The service's rule shows before anything is sent.
    await expect(form.getByText('At least 8 characters')).toBeVisible();
    await expect(form.getByRole('button', { name: 'Add user' })).toBeDisabled();
    await form.getByLabel(/^Password/).fill('first-secret-1');
    await form.getByLabel('Super-user (may do everything)').check();
    await form.getByRole('button', { name: 'Add user' }).click();
    const row = users.getByRole('listitem').filter({ has: page.getByRole('heading', { name: /keeper@example\.org/ }) });
    await expect(row.getByRole('checkbox', { name: 'Super-user' })).toBeChecked();
    expect(await superOf()).toBe(true);
    expect(await login('first-secret-1')).toBe(200);
    // Adding the same email again is refused before anything is sent: no takeover of the account.
    await form.getByLabel('Email').fill('Keeper@example.org');
    await form.getByLabel(/^Password/).fill('takeover-secret');
    await expect(form.getByText('keeper@example.org is already a user; change them in the list below')).toBeVisible();
    await expect(form.getByRole('button', { name: 'Add user' })).toBeDisabled();
    await everyShot(page, 'u-user-exists');
    await form.getByLabel('Email').fill('');
    await form.getByLabel(/^Password/).fill('');
    expect(await login('first-secret-1')).toBe(200);

    await row.getByRole('checkbox', { name: 'Super-user' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove super-user' });
    await expect(confirm).toContainText('keeper@example.org keeps only their dataset roles');
    await confirm.getByRole('button', { name: 'Remove super-user' }).click();
    await expect(row.getByRole('checkbox', { name: 'Super-user' })).not.toBeChecked();
    expect(await superOf()).toBe(false);

    const pw = row.getByRole('form', { name: 'Password of keeper@example.org' });
    await pw.getByLabel('New password').fill('second-secret-2');
    await pw.getByLabel('New password').press('Enter');
    await expect(pw.getByLabel('New password')).toHaveValue('');
    expect(await login('second-secret-2')).toBe(200);
    expect(await login('first-secret-1')).not.toBe(200);
    await everyShot(page, 'u-user-password', async () => {
      await expect(row).toBeVisible();
    });
  });

  test('deleting a dataset names what goes; the Trash restores it', async ({ page }) => {
    await openDataset(page, 'Doomed samples');
    await page.getByRole('button', { name: 'Delete dataset…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete “Doomed samples”?' });
    await expect(dialog).toContainText('1 record');
    await expect(dialog).toContainText('child dataset “Subsamples”');
    await expect(dialog).toContainText('Trash for 30 days');
    await everyShot(page, 'u-delete-confirm');
    // Cancel keeps everything.
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(page.getByRole('heading', { level: 1, name: 'Doomed samples' })).toBeVisible();

    await page.getByRole('button', { name: 'Delete dataset…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete dataset' }).click();
    const nav = page.getByRole('navigation', { name: 'Datasets' });
    await expect(nav.getByRole('link', { name: /^Doomed samples/ })).toHaveCount(0);
    // Its screen (and the button) are gone: the focus is on the screen that replaced it.
    await expect(page.getByRole('heading', { level: 1, name: 'Choose a dataset' })).toBeFocused();

    await page.getByRole('button', { name: 'Trash' }).click();
    const trash = panel(page, 'Trash');
    const entry = trash.getByRole('listitem').filter({ hasText: 'Doomed samples' });
    await expect(entry).toContainText('1 record');
    await everyShot(page, 'u-trash', async () => {
      await expect(entry).toBeVisible();
    });
    await entry.getByRole('button', { name: 'Restore Doomed samples' }).click();
    await page.getByRole('dialog', { name: 'Restore dataset' }).getByRole('button', { name: 'Restore' }).click();
    await expect(nav.getByRole('link', { name: /^Doomed samples/ })).toBeVisible();
    await expect(entry).toHaveCount(0);
    // The restored entry's button went with it: the focus stays in the panel.
    await expect(trash.getByRole('heading', { name: 'Datasets' })).toBeFocused();
  });
});
