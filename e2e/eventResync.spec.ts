import { expect, test, type Page, type Route } from '@playwright/test';
import { openDataset } from './support/app.js';
import { SYNTH_NAME, SYNTH_RECORD, deleteOverHttp, restoreOverHttp } from './support/curate.js';

// Events a window missed are not sent again: the service replaces what a slow reader missed by
// one `resync` event (test/api/slowEventClient.test.ts), and a dropped stream loses the events
// of its gap. Either way the window must refetch what it shows. Here the event stream is played
// by the test (page.route): the first connection says `ready` and ends at once; the second waits
// until a record was deleted over HTTP (an event the window never hears), then brings `resync`
// or a second `ready`. Records 16 and 18 (deleted, then restored) are this spec's.
// Why scripted (review 8 #16), though our own service is faked here: taking the page offline
// through CDP (Network.emulateNetworkConditions, offline) does not end an open EventSource stream
// in this Chromium (measured: still "Updates live" after 10 s), so the real stream cannot be cut
// from the page. A real resync needs the EventQueue bound as a ServiceConfig setting and a
// service of this spec's own started with a tiny bound: not done yet.

function scriptedEvents(page: Page, second: string) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let connections = 0;
  const sse = (body: string) => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, body });
  void page.route('**/local/events**', async (route: Route) => {
    connections++;
    // The first stream ends at once: EventSource reconnects after `retry` ms.
    if (connections === 1) return route.fulfill(sse('retry: 50\n\nevent: ready\ndata: {}\n\n'));
    await gate;
    // A long retry: no third connection while the test looks.
    return route.fulfill(sse(`retry: 600000\n\n${second}`));
  });
  return { open, connections: () => connections };
}

async function missedDelete(page: Page, i: number, second: string) {
  const events = scriptedEvents(page, second);
  await openDataset(page, 'Synthetic Samples');
  await page.getByRole('searchbox', { name: 'Search records' }).fill(SYNTH_NAME(i));
  // The header row and exactly the one match: the filtered list has replaced the full one.
  await expect(page.getByRole('grid').getByRole('row')).toHaveCount(2);
  const row = page.getByRole('grid').getByRole('row', { name: SYNTH_NAME(i), exact: true });
  await expect(row).toBeVisible();
  await expect.poll(events.connections).toBe(2);
  try {
    expect(await deleteOverHttp([SYNTH_RECORD(i)])).toBe(200);
    events.open();
    await expect(row).toHaveCount(0);
  } finally {
    expect(await restoreOverHttp(SYNTH_RECORD(i))).toBe(200);
  }
}

test('a resync event makes the window refetch what it shows', async ({ page }) => {
  await missedDelete(page, 16, 'event: resync\ndata: {"dropped":1}\n\n');
});

test('a reconnected event stream makes the window refetch what it shows', async ({ page }) => {
  await missedDelete(page, 18, 'event: ready\ndata: {}\n\n');
});
