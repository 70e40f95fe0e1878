import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ROOT, SCREENS } from './support/app.js';
import { startServe, type Served } from './support/serve.js';
import { SYNTH } from '../bench/synthetic.js';

// The sync panel against a real remote: a second service process seeded with the synthetic
// dataset, and an empty local service (its own process) that the browser drives.

const ADMIN = { email: 'admin@e2e.local', password: 'e2e-password' };
const RECORD = SYNTH.record(3);
const FIELD = SYNTH.field('Medium Text');
let remote: Served;
let local: Served;
const dirs: string[] = [];
let remoteDir0 = '';

async function tokenAt(origin: string) {
  const login = await fetch(`${origin}/api/v4/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: ADMIN.email, password: ADMIN.password }),
  });
  return ((await login.json()) as { token: string }).token;
}
async function api(origin: string, method: string, p: string, body?: unknown) {
  const token = await tokenAt(origin);
  const res = await fetch(`${origin}/api/v4${p}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { fields: { field_uuid: string; value?: unknown }[] };
}
/** The local side's live settings for its one remote, as stored. */
async function liveSettings(origin: string) {
  const res = await fetch(`${origin}/local/sync`, { headers: { Authorization: `Bearer ${await tokenAt(origin)}` } });
  return ((await res.json()) as { live: { pull_seconds: number }[] }).live[0]!;
}
const valueOf = async (origin: string, field = FIELD) =>
  (await api(origin, 'GET', `/dataset/record/${RECORD}`)).fields.find((f) => f.field_uuid === field)?.value;
const LONG = SYNTH.field('Long Text');
const DATASET = SYNTH.dataset;

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENS, `${name}.png`) });

// The live test continues from the remote the first one attached.
test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  const remoteDir = mkdtempSync(path.join(os.tmpdir(), 'odr-e2e-remote-'));
  const localDir = mkdtempSync(path.join(os.tmpdir(), 'odr-e2e-local-'));
  dirs.push(remoteDir, localDir);
  const seed = spawnSync(process.execPath, ['--import', 'tsx', 'e2e/support/seed.ts', remoteDir, '20'], { cwd: ROOT, encoding: 'utf8' });
  if (seed.status !== 0) throw new Error(`seeding the remote failed:\n${seed.stdout}\n${seed.stderr}`);
  remoteDir0 = remoteDir;
  remote = await startServe(remoteDir, ['--no-auto-login']);
  // The local side's first-run super-user gets the same credentials, so the API helper works on both.
  local = await startServe(localDir, [], { ODR_ADMIN_EMAIL: ADMIN.email, ODR_ADMIN_PASSWORD: ADMIN.password });
});
test.afterAll(async () => {
  await local?.stop();
  await remote?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('attach a remote, pull a dataset, edit on both sides, resolve the conflict', async ({ page }) => {
  await page.goto(local.url);
  await page.getByRole('button', { name: /^Sync/ }).click();
  const panel = page.getByRole('complementary', { name: 'Sync' });

  // A wrong password is refused with the server's reason, and nothing is attached.
  await panel.getByLabel('Server API address').fill(`${remote.url}/api/v4`);
  await panel.getByLabel('Email').fill(ADMIN.email);
  await panel.getByLabel('Password').fill('not-the-password');
  await panel.getByRole('button', { name: 'Connect' }).click();
  await expect(panel.getByRole('alert')).toContainText('Cannot log in');
  await panel.getByLabel('Password').fill(ADMIN.password);
  await panel.getByRole('button', { name: 'Connect' }).click();
  // The form gives way to the server's datasets: the focus stays in the panel, not on the page body.
  const heading = panel.getByRole('heading', { level: 2, name: 'Sync' });
  await expect(heading).toBeFocused();

  await panel.getByRole('checkbox', { name: 'Synthetic Samples' }).check();
  await shot(page, 'sync-1-choose-datasets');
  await panel.getByRole('button', { name: 'Sync 1 dataset' }).click();
  await expect(heading).toBeFocused();
  await expect(panel.getByRole('status')).toHaveText('Last sync finished', { timeout: 30_000 });
  // Dates in the app's one format (local YYYY-MM-DD HH:MM), not the browser's locale string.
  await expect(panel.getByRole('region', { name: 'Synced datasets' })).toContainText(/pulled \d{4}-\d{2}-\d{2} \d{2}:\d{2} · sent never/);
  await expect(page.getByRole('navigation', { name: 'Datasets' }).getByRole('link', { name: /^Synthetic Samples/ })).toBeVisible();
  await expect(panel.getByTestId('pending')).toHaveText('0');
  // Live mode is on by default; this test syncs by hand (the next one runs live).
  const liveBox = panel.getByRole('checkbox', { name: /^Live sync/ });
  await expect(liveBox).toBeChecked();
  await liveBox.click();
  await expect(liveBox).not.toBeChecked();
  await expect(page.getByTestId('sync-status')).toContainText('Live sync off');

  // The same field edited here (through the local API, as the editor does) and on the server.
  await api(local.url, 'POST', `/record/${RECORD}/${FIELD}/value`, { value: 'mine from the desktop' });
  await api(remote.url, 'POST', `/record/${RECORD}/${FIELD}/value`, { value: 'theirs from the lab' });
  await expect(panel.getByTestId('pending')).toHaveText('1');
  await panel.getByRole('button', { name: 'Sync now' }).click();
  const conflict = panel.getByRole('region', { name: 'Conflicts' }).getByRole('listitem');
  await expect(conflict).toHaveCount(1, { timeout: 30_000 });
  await expect(conflict).toContainText('mine from the desktop');
  await expect(conflict).toContainText('theirs from the lab');
  await expect(page.getByRole('button', { name: 'Sync (1 conflict)' })).toBeVisible();
  await shot(page, 'sync-2-conflict');

  // Merge: the merged value is saved here and sent to the server on the next sync.
  // The form replaces Merge… and Back replaces the form: the focus follows each time, and once
  // the conflict is resolved it goes to Sync now (no other conflict), never to the page body.
  await conflict.getByRole('button', { name: 'Merge…' }).click();
  await expect(conflict.getByRole('textbox')).toBeFocused();
  await conflict.getByRole('button', { name: 'Back' }).click();
  await expect(conflict.getByRole('button', { name: 'Merge…' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(conflict.getByRole('textbox')).toBeFocused();
  await conflict.getByRole('textbox').fill('merged: desktop + lab');
  await conflict.getByRole('button', { name: 'Save merged value' }).click();
  await expect(panel.getByRole('region', { name: 'Conflicts' })).toHaveCount(0);
  await expect(panel.getByRole('button', { name: 'Sync now' })).toBeFocused();
  expect(await valueOf(local.url)).toBe('merged: desktop + lab');
  await panel.getByRole('button', { name: 'Sync now' }).click();
  await expect.poll(() => valueOf(remote.url), { timeout: 30_000 }).toBe('merged: desktop + lab');
  await expect(panel.getByTestId('pending')).toHaveText('0');
  await shot(page, 'sync-3-after-merge');
});

test('live mode: edits travel both ways with no click; a stopped server shows offline with the changes waiting, then drains', async ({
  page,
}) => {
  test.setTimeout(200_000);
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(local.url);
  const status = page.getByTestId('sync-status');
  await status.click(); // the status line opens the Sync panel
  const panel = page.getByRole('complementary', { name: 'Sync' });
  await panel.getByRole('checkbox', { name: /^Live sync/ }).click();
  await expect(panel.getByRole('checkbox', { name: /^Live sync/ })).toBeChecked();
  await expect(status).toHaveAttribute('data-state', 'online', { timeout: 30_000 });
  // Pulls every 2 s instead of the default 30 s: the waits below are for a timer's pull, not its length.
  const interval = panel.getByRole('spinbutton', { name: 'Pull interval in seconds' });
  await expect(interval).toHaveValue('30');
  await interval.fill('2');
  await interval.press('Enter');
  await expect.poll(async () => (await liveSettings(local.url)).pull_seconds).toBe(2);
  await panel.getByRole('button', { name: 'Close sync' }).click();

  await page.goto(`${local.url}/#/d/${DATASET}/r/${RECORD}`);
  const editor = page.getByRole('complementary', { name: /^Record / });
  const long = editor.getByRole('textbox', { name: 'Long Text field' });
  await expect(long).toBeVisible();

  // An edit on the server appears in the open record by the next timed pull, no click.
  await api(remote.url, 'POST', `/record/${RECORD}/${LONG}/value`, { value: 'changed in the lab' });
  await expect(long).toHaveValue('changed in the lab', { timeout: 20_000 });

  // The field being edited is never overwritten by a pull: the fields around it update.
  const medium = editor.getByRole('textbox', { name: 'Medium Text field' });
  await medium.fill('half typed, not saved yet');
  await api(remote.url, 'POST', `/record/${RECORD}/${LONG}/value`, { value: 'changed again in the lab' });
  await api(remote.url, 'POST', `/record/${RECORD}/${FIELD}/value`, { value: 'the lab wrote this field too' });
  await expect(long).toHaveValue('changed again in the lab', { timeout: 20_000 });
  await expect(medium).toBeFocused();
  await expect(medium).toHaveValue('half typed, not saved yet');

  // An edit here reaches the server within 10 s.
  await medium.fill('typed on the desktop');
  await medium.press('Enter');
  const t0 = Date.now();
  await expect.poll(() => valueOf(remote.url), { timeout: 10_000 }).toBe('typed on the desktop');
  expect(Date.now() - t0).toBeLessThan(10_000);
  await expect(status).toContainText(/Online · synced/);
  for (const [w, h] of [
    [1024, 700],
    [1400, 900],
    [1920, 1080],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await shot(page, `sync-live-online-${w}`);
  }

  // The server stops: the header says offline since … with the change waiting.
  const port = new URL(remote.url).port;
  await remote.stop();
  await medium.fill('typed while the lab was down');
  await medium.press('Enter');
  await expect(status).toHaveAttribute('data-state', 'offline', { timeout: 30_000 });
  await expect(status).toContainText(/Offline since .* · 1 change waiting/, { timeout: 10_000 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'sync-live-offline-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await shot(page, 'sync-live-offline');

  // Back on the same address: the queue drains by itself.
  remote = await startServe(remoteDir0, ['--no-auto-login', '--port', port]);
  await expect(status).toHaveAttribute('data-state', 'online', { timeout: 45_000 });
  await expect(status).not.toContainText('waiting');
  expect(await valueOf(remote.url)).toBe('typed while the lab was down');
});
