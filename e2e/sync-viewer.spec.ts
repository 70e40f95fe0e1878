import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import sharp from 'sharp';
import { ROOT, field, openRecord } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD } from './support/curate.js';
import { everyShot } from './support/screens.js';
import { SERVED_ADMIN, servedJson, servedToken, startServe, type Served } from './support/serve.js';
import { SYNTH } from '../bench/synthetic.js';

// A record pulled from the remote whose image is only on the server: opened in the image viewer,
// the local service fetches it from the server and it shows. Two real service processes.

const ADMIN = SERVED_ADMIN;
const DATASET = SYNTH.dataset;
const IMAGE = SYNTH.field('Image');
const RECORD = SYNTH_RECORD(3);
const NAME = 'only-on-the-server.png';
let remote: Served;
let local: Served;
const dirs: string[] = [];

const token = servedToken;
const call = servedJson;
type Rec = { fields: { field_uuid: string; files?: { original_name: string; content_local?: boolean }[] }[] };
const imageOf = async (origin: string) =>
  (await call<Rec>(origin, 'GET', `/api/v4/dataset/record/${RECORD}`)).fields
    .find((f) => f.field_uuid === IMAGE)
    ?.files?.find((f) => f.original_name === NAME);

test.beforeAll(async () => {
  const remoteDir = mkdtempSync(path.join(os.tmpdir(), 'odr-e2e-remote-'));
  const localDir = mkdtempSync(path.join(os.tmpdir(), 'odr-e2e-local-'));
  dirs.push(remoteDir, localDir);
  const seed = spawnSync(process.execPath, ['--import', 'tsx', 'e2e/support/seed.ts', remoteDir, '6'], { cwd: ROOT, encoding: 'utf8' });
  if (seed.status !== 0) throw new Error(`seeding the remote failed:\n${seed.stdout}\n${seed.stderr}`);
  remote = await startServe(remoteDir, ['--no-auto-login']);
  // The image goes to the server only, as a colleague's upload on the lab's ODR would.
  const png = await sharp({ create: { width: 1600, height: 1000, channels: 3, background: '#2f8f5b' } })
    .png()
    .toBuffer();
  const form = new FormData();
  for (const [k, v] of Object.entries({ dataset_uuid: DATASET, record_uuid: RECORD, field_uuid: IMAGE, template_field_uuid: '' }))
    form.set(k, v);
  form.set('file', new Blob([png], { type: 'image/png' }), NAME);
  const up = await fetch(`${remote.url}/api/v4/file`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await token(remote.url)}` },
    body: form,
    redirect: 'manual',
  });
  expect([200, 201, 302]).toContain(up.status);

  local = await startServe(localDir, [], { ODR_ADMIN_EMAIL: ADMIN.email, ODR_ADMIN_PASSWORD: ADMIN.password });
  const { id } = await call<{ id: number }>(local.url, 'POST', '/local/sync/remotes', {
    url: `${remote.url}/api/v4`,
    username: ADMIN.email,
    password: ADMIN.password,
  });
  await call(local.url, 'POST', '/local/sync/run', { remote_id: id, datasets: [DATASET] });
  // Pulled: the record lists the image, its bytes not here.
  await expect.poll(async () => (await imageOf(local.url).catch(() => undefined))?.content_local, { timeout: 30_000 }).toBe(false);
});
test.afterAll(async () => {
  await local?.stop();
  await remote?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('a server-only image of a pulled record opens in the viewer: fetched from the server, shown', async ({ page }) => {
  await page.goto(local.url);
  await page
    .getByRole('navigation', { name: 'Datasets' })
    .getByRole('link', { name: /^Synthetic Samples/ })
    .first()
    .click();
  await expect(page.getByRole('grid').getByRole('row', { name: SYNTH_NAME(3), exact: true })).toBeVisible();
  const editor = await openRecord(page, SYNTH_NAME(3));
  const open = field(editor, 'Image field').getByRole('button', { name: `View ${NAME}` });
  await expect(open).toBeVisible();
  await open.click();
  const viewer = page.getByRole('dialog', { name: `Image ${NAME}` });
  await expect(viewer).toBeVisible();
  const img = viewer.getByRole('img', { name: NAME });
  // The original came from the server through the local service, at full size.
  await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth), { timeout: 30_000 }).toBe(1600);
  await expect(viewer).not.toContainText('not on this computer');
  // Kept here now.
  expect((await imageOf(local.url))?.content_local).toBeUndefined();
  await everyShot(page, 'sync-server-image-viewer', async () => {
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(1600);
  });
});
