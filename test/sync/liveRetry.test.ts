import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { LiveStatus } from '../../shared/schemas/sync.js';
import { PUSH_DELAY_MS } from '../../electron/service/sync/live.js';
import type { TestService } from '../support/service.js';
import { attachedPair, within, type GatedPair } from './support.js';

// An offline remote is tried again on a timer. A push queued behind the failing pass (a record
// written here meanwhile, in a dataset that is not synced, so nothing to send) used to clear that
// timer and return without setting another: live mode then stayed offline until a nudge.

describe('live mode offline, a push with nothing to send queued behind the failing pass', () => {
  let local: TestService;
  let gate: GatedPair['gate'];
  let remoteId: number;
  const seen: LiveStatus[] = [];
  attachedPair(
    4,
    (p) => {
      ({ local, gate, remoteId } = p as GatedPair);
      local.service.ctx.events.on('sync', (s: LiveStatus) => seen.push(s));
    },
    { gated: true, local: { liveSync: true } },
  );

  /** The kind of pass queued behind the one under way (read from live mode itself: nothing else shows it). */
  const queued = () =>
    (local.service.sync.live as unknown as { live: Map<number, { queued: string | null }> }).live.get(remoteId)?.queued ?? null;

  it('keeps the retry: the remote is tried again when it is due, with no nudge', async () => {
    const res = await local.admin.send('POST', '/dataset', { form: { template_uuid: SYNTH.dataset, dataset_name: 'Not synced' } });
    expect(res.status).toBe(200);
    const unsynced = local.service.domain
      .schema()
      .topLevel()
      .find((dt) => dt.name === 'Not synced')!.uuid;
    const state = () => local.service.sync.live.statuses()[0]?.state;
    expect(await within(10_000, () => state() === 'online'), `online first (${state()})`).toBe(true);

    // A pass held at its first request; a record made here meanwhile queues a push behind it.
    const first = gate.hold(() => true);
    local.service.sync.live.nudge();
    await first.reached;
    await local.admin.createRecord(unsynced);
    expect(await within(PUSH_DELAY_MS + 5000, () => queued() === 'push'), 'a push queued behind the pass').toBe(true);
    // The remote is down for that pass (its reads tried three times).
    const mark = seen.length;
    const offline = () => seen.slice(mark).find((s) => s.state === 'offline');
    let held = first;
    for (let i = 0; i < 10 && !offline(); i++) {
      held.release({ status: 503, message: 'down for the test' });
      held = gate.hold(() => true);
      await Promise.race([held.reached, within(5000, () => offline() !== undefined)]);
    }
    gate.hold(() => false); // nothing held from here on: the retry reaches the remote
    held.release();
    const down = offline();
    expect(down?.next_try, 'offline with a next try').toBeTruthy();
    // The first failure's retry is due within 1 s; it goes to the remote and finds it back.
    const wait = Date.parse(down!.next_try!) - Date.now() + 5000;
    expect(await within(wait, () => seen.slice(mark).some((s) => s.state === 'online')), 'tried again when due').toBe(true);
  });
});
