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
  });
});
