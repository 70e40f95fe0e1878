import { expect, test } from '@playwright/test';
import { NO_FIXTURES, apiToken, baseUrl, field, haveFixtures, openDataset, openRecord } from './support/app.js';

// A user who is not a super-user, on the real CheMin export (files listed without their bytes,
// many without a size): the "not on this computer" notice asks nothing that answers them 403
// (GET /local/sync is a super-user's), and a file listed without a size shows no size, never
// "0 bytes". The page gets that user's session from the real service (a real login).

test.skip(!haveFixtures(), NO_FIXTURES);

async function nonSuperSession() {
  const admin = await apiToken();
  const email = `viewer-${Date.now()}@e2e.local`;
  const password = 'viewer-password-1';
  const post = async (path: string, body: string | URLSearchParams, type?: string) => {
    const res = await fetch(`${baseUrl()}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin}`, ...(type ? { 'content-type': type } : {}) },
      body,
    });
    expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(300);
    return res;
  };
  await post('/local/users', JSON.stringify({ email, password }), 'application/json');
  const datasets = (await (await fetch(`${baseUrl()}/local/datasets`, { headers: { Authorization: `Bearer ${admin}` } })).json()) as {
    datasets: { uuid: string; name: string }[];
  };
  const chemin = datasets.datasets.find((d) => d.name === 'CheMin')!.uuid;
  await post('/api/v4/user/permissions', new URLSearchParams({ user_email: email, dataset_uuid: chemin, permission: 'view_all' }));
  const login = await fetch(`${baseUrl()}/api/v4/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: email, password }),
  });
  const { token } = (await login.json()) as { token: string };
  return { token, user: { email, name: email, super_user: false } };
}

test('not a super-user: the missing-file notice asks nothing refused, and a file without a size shows none', async ({ page }) => {
  const session = await nonSuperSession();
  await page.route('**/local/session', (route) => route.fulfill({ json: session }));
  const refused: string[] = [];
  page.on('response', (r) => {
    const path = new URL(r.url()).pathname;
    if (r.status() === 403 || path === '/local/sync' || path.startsWith('/local/sync/')) refused.push(`${r.status()} ${r.url()}`);
  });
  await openDataset(page, 'CheMin');
  const editor = await openRecord(page, 'Rocknest (5th scoop)');
  const problem = editor.getByRole('region', { name: 'XRD-RDA records' }).getByTestId('file-problem');
  await expect(problem).toContainText('not on this computer');
  await expect(problem).toContainText('Attach the ODR server in Sync');

  // The export lists "Sciences.jpg" with its dimensions but no size.
  const item = field(editor, 'Images').getByRole('listitem').filter({ hasText: 'Sciences.jpg' }).first();
  await expect.soft(item.getByTestId('file-size')).toHaveText(/^(\d+×\d+)?$/);
  expect(refused).toEqual([]);
});
