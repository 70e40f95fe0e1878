import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { SYNTH } from '../bench/synthetic.js';
import { OdrClient } from '../shared/client/odrClient.js';
import { getLocal, type Mockttp } from 'mockttp';
import { ROOT, checkedRightAfterClick } from './support/app.js';
import { expectHeaderFits } from './support/headerFits.js';
import { everyShot } from './support/screens.js';
import { SERVED_ADMIN, servedCall, servedJson, servedToken, startServe, type Served } from './support/serve.js';

// "Needs attention" in the Sync panel: an edit the server refuses is listed with the server's
// reason, and each entry has a way out: Retry (sent again by the next sync) and Discard (the
// server's version taken here). Two real service processes; the local one reaches the remote
// through a loopback proxy that refuses this one field's writes while `refusing` is set.

const ADMIN = SERVED_ADMIN;
const DATASET = SYNTH.dataset;
// Seed record 12: no other spec reads or writes it.
const RECORD = SYNTH.record(12);
const FIELD = SYNTH.field('Medium Text');
let remote: Served;
let local: Served;
let proxy: Mockttp;
let refusing = false;
/** Refuse record creates and file uploads in the dataset (the second test's refused writes). */
let refusingNew = false;
const dirs: string[] = [];

const call = (origin: string, method: string, p: string, body?: unknown) => servedJson<Record<string, unknown>>(origin, method, p, body);
const setHere = (value: string) => call(local.url, 'POST', `/api/v4/record/${RECORD}/${FIELD}/value`, { value });
const valueOf = async (origin: string) =>
  ((await call(origin, 'GET', `/api/v4/dataset/record/${RECORD}`)).fields as { field_uuid: string; value?: unknown }[]).find(
    (f) => f.field_uuid === FIELD,
  )?.value;

test.beforeAll(async () => {
  const remoteDir = mkdtempSync(path.join(os.tmpdir(), 'odr-e2e-remote-'));
  const localDir = mkdtempSync(path.join(os.tmpdir(), 'odr-e2e-local-'));
  dirs.push(remoteDir, localDir);
  const seed = spawnSync(process.execPath, ['--import', 'tsx', 'e2e/support/seed.ts', remoteDir, '13'], { cwd: ROOT, encoding: 'utf8' });
  if (seed.status !== 0) throw new Error(`seeding the remote failed:\n${seed.stdout}\n${seed.stderr}`);
  remote = await startServe(remoteDir, ['--no-auto-login']);
  local = await startServe(localDir, [], { ODR_ADMIN_EMAIL: ADMIN.email, ODR_ADMIN_PASSWORD: ADMIN.password });
  proxy = getLocal();
  await proxy.start();
  const origin = new URL(remote.url).origin;
  await proxy.forAnyRequest().thenPassThrough({
    beforeRequest: (req) => {
      const url = new URL(req.url);
      const refused =
        (refusing && url.pathname === `/api/v4/record/${RECORD}/${FIELD}/value`) ||
        (refusingNew && (url.pathname === `/api/v4/dataset/${DATASET}/record` || url.pathname === '/api/v4/file'));
      if (refused && req.method === 'POST')
        return {
          response: {
            statusCode: 403,
            body: JSON.stringify({ error: { code: 403, message: 'refused by the lab server' } }),
            headers: { 'content-type': 'application/json' },
          },
        };
      return { url: origin + url.pathname + url.search };
    },
  });
  const { id } = (await call(local.url, 'POST', '/local/sync/remotes', {
    url: `${proxy.url}/api/v4`,
    username: ADMIN.email,
    password: ADMIN.password,
  })) as { id: number };
  // Synced by hand here: each step below waits for the state a click leads to.
  await call(local.url, 'PUT', `/local/sync/remotes/${id}/live`, { enabled: false, pull_seconds: 0 });
  await call(local.url, 'POST', '/local/sync/run', { remote_id: id, datasets: [DATASET] });
  await expect
    .poll(
      async () =>
        ((await call(local.url, 'GET', '/local/sync')) as { datasets: { last_pull: string | null }[] }).datasets[0]?.last_pull ?? null,
      {
        timeout: 30_000,
      },
    )
    .not.toBeNull();
});
test.afterAll(async () => {
  await proxy?.stop();
  await local?.stop();
  await remote?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Opens the Sync panel; `syncNow` clicks Sync now and waits for that click's own job. */
async function openPanel(page: Page) {
  await page.goto(local.url);
  await page.getByRole('button', { name: /^Sync/ }).click();
  const panel = page.getByRole('complementary', { name: 'Sync' });
  const attention = panel.getByRole('region', { name: 'Needs attention' });
  // Waits for this click's job: until its answer arrives the panel still shows the previous
  // job's "Last sync finished", so that text alone can pass before this sync ran.
  const syncNow = async () => {
    const started = page.waitForResponse((r) => r.url().endsWith('/local/sync/run') && r.request().method() === 'POST');
    await panel.getByRole('button', { name: 'Sync now' }).click();
    const { id } = (await (await started).json()) as { id: number };
    await expect
      .poll(
        async () =>
          ((await call(local.url, 'GET', '/local/jobs')).jobs as { id: number; completed: string | null }[]).find((j) => j.id === id)
            ?.completed ?? null,
        {
          timeout: 30_000,
        },
      )
      .not.toBeNull();
    await expect(panel.getByRole('status')).toHaveText('Last sync finished', { timeout: 30_000 });
  };
  return { panel, attention, entry: attention.getByRole('listitem'), syncNow };
}

test('a refused edit is listed with why; Retry sends it again, Discard takes the server’s version', async ({ page }) => {
  test.setTimeout(120_000);
  const { panel, attention, entry, syncNow } = await openPanel(page);

  refusing = true;
  await setHere('typed here, refused by the lab');
  await syncNow();
  await expect(entry).toHaveCount(1);
  await expect(entry).toContainText('Set value');
  await expect(entry).toContainText('refused by the lab server');
  await everyShot(page, 'sync-needs-attention', async () => {
    await expect(entry.getByRole('button', { name: 'Discard' })).toBeVisible();
    // The long sync sentence shortens; the app's name and the buttons stay whole (1024 px too).
    await expectHeaderFits(page);
  });

  // Retried while the server still refuses: queued, then listed again by the next sync.
  await entry.getByRole('button', { name: 'Retry' }).click();
  await expect(attention).toHaveCount(0);
  await expect(panel.getByTestId('pending')).toHaveText('1');
  await syncNow();
  await expect(entry).toHaveCount(1);

  // The cause fixed on the server: Retry, and the next sync sends it.
  refusing = false;
  await entry.getByRole('button', { name: 'Retry' }).click();
  await syncNow();
  await expect(attention).toHaveCount(0);
  expect(await valueOf(remote.url)).toBe('typed here, refused by the lab');

  // Discard: the edit is dropped and the server's value is back here; nothing is sent.
  refusing = true;
  await setHere('typed here, then discarded');
  await syncNow();
  await expect(entry).toHaveCount(1);
  await entry.getByRole('button', { name: 'Discard' }).click();
  await expect(attention).toHaveCount(0);
  expect(await valueOf(local.url)).toBe('typed here, refused by the lab');
  await expect(panel.getByTestId('pending')).toHaveText('0');
  refusing = false;
  await syncNow();
  expect(await valueOf(remote.url)).toBe('typed here, refused by the lab');
  expect(await valueOf(local.url)).toBe('typed here, refused by the lab');
});

test('Discard of what the server never received asks in the app first: Cancel keeps it, the dialog’s action deletes it', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const here = new OdrClient({ baseUrl: `${local.url}/api/v4`, token: await servedToken(local.url) });
  refusingNew = true;
  const made = await here.createRecord(DATASET);
  const upload = await here.uploadFile(
    { dataset_uuid: DATASET, record_uuid: RECORD, field_uuid: SYNTH.field('File') },
    { blob: new Blob(['only here'], { type: 'text/plain' }), name: 'only-copy.txt' },
  );
  const file = upload.fields.flatMap((f) => f.files ?? []).find((f) => f.original_name === 'only-copy.txt')!.file_uuid;
  const { panel, entry, syncNow } = await openPanel(page);
  await syncNow();
  refusingNew = false;
  const create = entry.filter({ hasText: 'Create record' });
  const upl = entry.filter({ hasText: 'Upload file' });
  await expect(create).toHaveCount(1);
  await expect(upl).toHaveCount(1);
  const recordHere = async () => (await servedCall(local.url, 'GET', `/api/v4/dataset/record/${made.record_uuid}`)).status;
  const fileHere = async () => (await servedCall(local.url, 'GET', `/api/v4/file/${file}`)).status;
  const dialog = page.getByRole('dialog');

  // The keyboard alone: Discard, the dialog takes the focus on Cancel; Cancel keeps the record
  // and gives the focus back to Discard.
  const discardCreate = create.getByRole('button', { name: 'Discard' });
  await discardCreate.focus();
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveAccessibleName('Discard this new record?');
  await expect(dialog).toContainText('The server never received it');
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await everyShot(page, 'sync-discard-confirm', () => expect(dialog).toBeVisible());
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(discardCreate).toBeFocused();
  expect(await recordHere()).toBe(200);
  await expect(create).toHaveCount(1);

  // Again, Tab to the dialog's action, Enter: the record leaves (to the Trash) and the entry with
  // it; the focus goes to the next entry's Discard.
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Discard record' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(create).toHaveCount(0);
  await expect.poll(recordHere).toBe(404);
  await expect(upl.getByRole('button', { name: 'Discard' })).toBeFocused();

  // The upload: named in the question; Escape keeps the file, the dialog's Delete file deletes it.
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveAccessibleName('Delete only-copy.txt here?');
  await expect(dialog).toContainText('removes the only copy');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(upl.getByRole('button', { name: 'Discard' })).toBeFocused();
  expect(await fileHere()).toBe(200);
  await upl.getByRole('button', { name: 'Discard' }).click();
  await dialog.getByRole('button', { name: 'Delete file' }).click();
  await expect(upl).toHaveCount(0);
  await expect.poll(fileHere).toBe(404);
  await expect(panel.getByRole('button', { name: 'Sync now' })).toBeFocused();

  // Nothing of either reaches the server.
  await syncNow();
  await expect(panel.getByTestId('pending')).toHaveText('0');
  expect((await servedCall(remote.url, 'GET', `/api/v4/dataset/record/${made.record_uuid}`)).status).toBe(404);
});

test('a child record the server deleted while it changed here: Keep it or Delete it here, nothing to merge', async ({ page }) => {
  test.setTimeout(120_000);
  // Seed record 10 has children. Its file bytes stored here put it on the merge path, where a
  // child the server deleted stays here while a change of it waits (docs/sync.md §3).
  const TOP = SYNTH.record(10);
  const here = new OdrClient({ baseUrl: `${local.url}/api/v4`, token: await servedToken(local.url) });
  await here.uploadFile(
    { dataset_uuid: DATASET, record_uuid: TOP, field_uuid: SYNTH.field('File') },
    { blob: new Blob(['kept here'], { type: 'text/plain' }), name: 'merge-path.txt' },
  );
  const { panel, syncNow } = await openPanel(page);
  await syncNow();
  const kid = ((await here.record(TOP)).records ?? [])[0]!;
  const child = kid.record_uuid;
  await call(local.url, 'POST', `/api/v4/record/${child}/${SYNTH.childField(3)}/value`, { value: 'noted here, not sent' });
  await servedJson(remote.url, 'DELETE', '/api/v4/record', { record_uuids: [child] });
  await syncNow();

  // The deleted-child card alone: the child's waiting edit is no value conflict of its own.
  const cards = panel.getByRole('region', { name: 'Conflicts' }).getByRole('listitem');
  const card = cards.filter({ hasText: '(child record)' });
  await expect(card).toHaveCount(1);
  await expect(cards).toHaveCount(1);
  await expect(card).toContainText('deleted on the server');
  await expect(card.getByRole('button', { name: 'Merge…' })).toHaveCount(0);
  await expect(card.getByRole('button', { name: 'Keep mine' })).toHaveCount(0);
  await expect(card.getByRole('button', { name: 'Keep it' })).toHaveAttribute('title', /make it on the server again/);
  await everyShot(page, 'sync-conflict-deleted-child', async () => {
    await card.scrollIntoViewIfNeeded();
    await expect(card).toBeInViewport();
  });

  // Delete it here asks first, in the app's dialog, naming the record as the list does; Cancel
  // keeps it and gives the focus back. While the name is read (held here at the network) the
  // card's choices are unavailable: Keep it then would leave the dialog asking about a
  // conflict already resolved.
  const dialog = page.getByRole('dialog');
  const childHere = async () => (await servedCall(local.url, 'GET', `/api/v4/dataset/record/${child}`)).status;
  const held: (() => void)[] = [];
  const nameRead = `**/api/v4/dataset/record/${child}*`;
  await page.route(nameRead, async (route) => {
    await new Promise<void>((resolve) => held.push(resolve));
    await route.continue();
  });
  await card.getByRole('button', { name: 'Delete it here' }).click();
  await expect.poll(() => held.length).toBe(1);
  for (const name of ['Keep it', 'Delete it here'])
    await expect(card.getByRole('button', { name })).toHaveAttribute('aria-disabled', 'true');
  await expect(dialog).toHaveCount(0);
  held[0]!();
  await expect(dialog).toHaveAccessibleName(`Delete ${kid.record_name} here?`);
  await page.unroute(nameRead);
  await expect(dialog).toContainText('the Trash keeps it for 30 days');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(card.getByRole('button', { name: 'Delete it here' })).toBeFocused();
  await expect(card.getByRole('button', { name: 'Keep it' })).not.toHaveAttribute('aria-disabled');
  expect(await childHere()).toBe(200);
  await card.getByRole('button', { name: 'Delete it here' }).click();
  await dialog.getByRole('button', { name: 'Delete it here' }).click();
  await expect(card).toHaveCount(0);
  // The last card gone: the focus goes to Sync now, not to the page body.
  await expect(panel.getByRole('button', { name: 'Sync now' })).toBeFocused();
  await expect(page.getByRole('region', { name: 'Messages' })).toContainText('deleted here too (the Trash keeps it for 30 days)');
  expect(await childHere()).toBe(404);
});

// Last: live sync, once on, would run syncs of its own under the tests above.
test('Live sync and Keep files offline show the click at once, then hold what the service stored', async ({ page }) => {
  const { panel } = await openPanel(page);
  const stored = async () => {
    const s = (await call(local.url, 'GET', '/local/sync')) as {
      live: { enabled: boolean }[];
      datasets: { keep_files_offline: boolean }[];
    };
    return { live: s.live[0]?.enabled, offline: s.datasets[0]?.keep_files_offline };
  };
  expect(await stored()).toEqual({ live: false, offline: false });
  for (const [box, key] of [
    [panel.getByRole('checkbox', { name: /^Live sync/ }), 'live'],
    [panel.getByRole('checkbox', { name: 'Keep files offline' }), 'offline'],
  ] as const) {
    expect(await checkedRightAfterClick(box)).toBe(true);
    await expect.poll(async () => (await stored())[key]).toBe(true);
    await expect(box).toBeChecked();
    expect(await checkedRightAfterClick(box)).toBe(false);
    await expect.poll(async () => (await stored())[key]).toBe(false);
    await expect(box).not.toBeChecked();
  }
});

// Two clicks on Live sync while the first save is still on its way: the first save's answer (and
// its refetch, which says "on") must not hand the box back to the cache while the second click's
// save ("off") waits (ui/useSavedToggle.ts, only the latest click's save does). The real
// requests are held at the network in turn, then sent on to the service.
test('Live sync clicked twice quickly: the first save settling does not undo the second click', async ({ page }) => {
  const { panel } = await openPanel(page);
  const box = panel.getByRole('checkbox', { name: /^Live sync/ });
  await expect(box).not.toBeChecked();
  const held: (() => void)[] = [];
  await page.route('**/local/sync/remotes/*/live', async (route) => {
    await new Promise<void>((resolve) => held.push(resolve));
    await route.continue();
  });
  await box.click();
  await expect.poll(() => held.length).toBe(1);
  await box.click();
  await expect.poll(() => held.length).toBe(2);
  await expect(box).not.toBeChecked();

  // The first save ("on") reaches the service and the panel refetches: the pull interval, drawn
  // from the stored state only, shows it. A task and two frames later the box still shows the
  // second click.
  held[0]!();
  const interval = panel.getByRole('spinbutton', { name: 'Pull interval in seconds' });
  await expect(interval).toBeVisible();
  await page.evaluate(() => new Promise((r) => setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(r)), 0)));
  await expect(box).not.toBeChecked({ timeout: 1000 });

  held[1]!();
  await expect(interval).toHaveCount(0);
  await expect(box).not.toBeChecked();
  const live = ((await call(local.url, 'GET', '/local/sync')) as { live: { enabled: boolean }[] }).live[0]?.enabled;
  expect(live).toBe(false);
});
