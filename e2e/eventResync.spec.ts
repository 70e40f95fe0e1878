import { expect, test, type Page, type Route } from '@playwright/test';
import { openDataset } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD } from './support/curate.js';
import type { Served } from './support/serve.js';
import { syntheticServe } from './support/syntheticServe.js';

// Events a window missed are not sent again: the service replaces what a slow reader missed by
// one `resync` event (test/api/slowEventClient.test.ts), and a dropped stream loses the events
// of its gap. Either way the window must refetch what it shows. Each case has a service of its
// own, and every event the window gets is the service's: a record is deleted over HTTP, the
// `records` event that would tell the window never reaches it, and the row must still go.

const N = 12;
const RECORD = 3;
test.describe.configure({ timeout: 120_000 });

/** The names of the server-sent events the page received, in order (CDP sees the real stream). */
async function eventNames(page: Page) {
  const names: string[] = [];
  const cdp = await page.context().newCDPSession(page);
  cdp.on('Network.eventSourceMessageReceived', (e) => names.push(e.eventName));
  await cdp.send('Network.enable');
  return names;
}

async function showOnly(page: Page, on: Served, i: number) {
  await openDataset(page, 'Synthetic Samples', on.url);
  await page.getByRole('searchbox', { name: 'Search records' }).fill(SYNTH_NAME(i));
  // The header row and exactly the one match: the filtered list has replaced the full one.
  await expect(page.getByRole('grid').getByRole('row')).toHaveCount(2);
  const row = page.getByRole('grid').getByRole('row', { name: SYNTH_NAME(i), exact: true });
  await expect(row).toBeVisible();
  await expect(page.getByRole('img', { name: 'Updates live' })).toBeVisible();
  return row;
}

/** Deletes a record over HTTP, as another window or script would (the auto-login session's token). */
async function deleteOn(on: Served, uuid: string) {
  const { token } = (await (await fetch(`${on.url}/local/session`, { method: 'POST' })).json()) as { token: string };
  const res = await fetch(`${on.url}/api/v4/record`, {
    method: 'DELETE',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ record_uuids: [uuid] }),
  });
  expect(res.status).toBe(200);
}

test.describe('a stream that fell behind', () => {
  // An event queue bound (ODR_EVENT_QUEUE_CHARS) below the size of any one event: the deletion's
  // `records` event overflows the real queue, which the service replaces by `resync`. A bound in
  // events would not do: Chromium reads at once, so the queue never holds two events for certain.
  const served = syntheticServe('resync', N, { ODR_EVENT_QUEUE_CHARS: '16' });

  test('a resync event makes the window refetch what it shows', async ({ page }) => {
    const events = await eventNames(page);
    const row = await showOnly(page, served(), RECORD);
    await deleteOn(served(), SYNTH_RECORD(RECORD));
    await expect.poll(() => events).toContain('resync');
    expect(events).not.toContain('records');
    await expect(row).toHaveCount(0);
  });
});

test.describe('a stream the service ended', () => {
  const served = syntheticServe('reconnect', N);

  test('a reconnected event stream makes the window refetch what it shows', async ({ page }) => {
    const events = await eventNames(page);
    // The reconnection is held (then sent on to the real service) until the deletion is done:
    // the deletion falls in the gap, as one does when a service restarts under a window.
    let connections = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    await page.route('**/local/events**', async (route: Route) => {
      if (++connections > 1) await gate;
      await route.continue();
    });
    const row = await showOnly(page, served(), RECORD);
    expect(events).toEqual(['ready']);

    // The service ends the stream: it stops (SIGTERM) and serves the same data dir again.
    await served().restart();
    await expect.poll(() => connections).toBe(2);
    await deleteOn(served(), SYNTH_RECORD(RECORD));
    open();
    await expect.poll(() => events).toEqual(['ready', 'ready']);
    await expect(row).toHaveCount(0);
  });
});
