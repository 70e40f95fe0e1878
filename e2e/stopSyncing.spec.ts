import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { ROOT } from './support/app.js';
import { everyShot } from './support/screens.js';
import { SERVED_ADMIN, servedCall, startServe, type Served } from './support/serve.js';
import { SYNTH } from '../bench/synthetic.js';

// "Stop syncing" in the Sync panel: an in-app confirmation, then the dataset is no longer
// synced, its records stay here, and deleting it (refused while synced) works. Two real
// service processes: the remote and the local app.

const ADMIN = SERVED_ADMIN;
const DATASET = SYNTH.dataset;
let remote: Served;
let local: Served;
const dirs: string[] = [];

const call = servedCall;

test.beforeAll(async () => {
  const remoteDir = mkdtempSync(path.join(os.tmpdir(), 'odr-e2e-remote-'));
  const localDir = mkdtempSync(path.join(os.tmpdir(), 'odr-e2e-local-'));
  dirs.push(remoteDir, localDir);
  const seed = spawnSync(process.execPath, ['--import', 'tsx', 'e2e/support/seed.ts', remoteDir, '4'], { cwd: ROOT, encoding: 'utf8' });
  if (seed.status !== 0) throw new Error(`seeding the remote failed:\n${seed.stdout}\n${seed.stderr}`);
  remote = await startServe(remoteDir, ['--no-auto-login']);
  local = await startServe(localDir, [], { ODR_ADMIN_EMAIL: ADMIN.email, ODR_ADMIN_PASSWORD: ADMIN.password });
  const added = await call(local.url, 'POST', '/local/sync/remotes', {
    url: `${remote.url}/api/v4`,
    username: ADMIN.email,
    password: ADMIN.password,
  });
  const { id } = (await added.json()) as { id: number };
  expect((await call(local.url, 'POST', '/local/sync/run', { remote_id: id, datasets: [DATASET] })).status).toBe(202);
  await expect
    .poll(
      async () =>
        ((await (await call(local.url, 'GET', '/local/sync')).json()) as { datasets: { last_pull: string | null }[] }).datasets[0]
          ?.last_pull ?? null,
      {
        timeout: 30_000,
      },
    )
    .not.toBeNull();
});
test.afterAll(async () => {
  await local?.stop();
  await remote?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('stop syncing a dataset: confirmed in the app, the data stays, and then it can be deleted', async ({ page }) => {
  expect((await call(local.url, 'DELETE', `/api/v4/dataset/${DATASET}`)).status).toBe(409);
  await page.goto(local.url);
  await page.getByRole('button', { name: /^Sync/ }).click();
  const panel = page.getByRole('complementary', { name: 'Sync' });
  const synced = panel.getByRole('region', { name: 'Synced datasets' });
  await expect(synced).toContainText('Synthetic Samples');
  await everyShot(page, 'sync-stop-syncing', async () => {
    await expect(synced.getByRole('button', { name: 'Stop syncing' })).toBeVisible();
  });

  // Cancel changes nothing.
  await synced.getByRole('button', { name: 'Stop syncing' }).click();
  const confirm = page.getByRole('dialog', { name: 'Stop syncing Synthetic Samples?' });
  await expect(confirm).toBeVisible();
  // The seeded files were never downloaded: the dialog names how many will no longer open.
  const preview = (await (await call(local.url, 'GET', `/local/sync/datasets/${DATASET}`)).json()) as { files_not_local: number };
  expect(preview.files_not_local).toBe(1);
  await expect(confirm).toContainText('1 file was never downloaded: it will no longer open here');
  await expect(confirm.getByRole('button', { name: 'Stop syncing, lose 1 file' })).toBeVisible();
  await everyShot(page, 'sync-stop-syncing-confirm', async () => {
    await expect(confirm).toBeVisible();
  });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  await expect(synced).toContainText('Synthetic Samples');

  await synced.getByRole('button', { name: 'Stop syncing' }).click();
  await confirm.getByRole('button', { name: 'Stop syncing' }).click();
  await expect(page.getByText('Synthetic Samples is no longer synced')).toBeVisible();
  await expect(panel.getByRole('region', { name: 'Synced datasets' })).toHaveCount(0);
  // The records stay here; the dataset can now be deleted.
  const list = (await (await call(local.url, 'GET', `/api/v4/dataset/${DATASET}/100/0`)).json()) as { records: unknown[] };
  expect(list.records.length).toBe(4);
  expect((await call(local.url, 'DELETE', `/api/v4/dataset/${DATASET}`)).status).toBeLessThan(400);
});
