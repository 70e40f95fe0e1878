import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { TestService } from '../support/service.js';
import { attachedPair, syncRun, type gateProxy } from './support.js';

// A first pull asks for the pages after the one it is storing (docs/sync.md §4), so the remote
// renders them while this one is parsed and stored; and the outbox collection each page's
// transaction makes does not read the pull's own change-log entries again and again.

const DS = SYNTH.dataset;
const PAGE = 100;
let local: TestService;
let remoteId: number;
let gate: Awaited<ReturnType<typeof gateProxy>>;

attachedPair(
  350,
  (p) => {
    ({ local, remoteId } = p);
    gate = p.gate!;
  },
  { gated: true, firstSync: false },
);

const pagePath = (offset: number) => `/api/v4/dataset/${DS}/${PAGE}/${offset}`;
const db = () => local.service.ctx.db;

describe('a first pull', () => {
  it('asks for the page after next while the next one is on its way; every record arrives', async () => {
    // Page 1's answer is held at the proxy: page 2 must be asked for all the same.
    const held = gate.hold((method, path) => method === 'GET' && path === pagePath(PAGE));
    const run = syncRun(local, remoteId);
    await held.reached;
    try {
      await expect.poll(() => gate.seen.includes(`GET ${pagePath(2 * PAGE)}`), { timeout: 15_000, interval: 50 }).toBe(true);
    } finally {
      held.release();
      await run;
    }
    const tops = db().prepare('SELECT COUNT(*) FROM records WHERE parent_rid IS NULL').pluck().get();
    expect(tops).toBe(350);
  });

  it('leaves the outbox collection past its own change-log entries; an edit made after it is still collected', async () => {
    const count = (sql: string, ...args: unknown[]) =>
      Number(
        db()
          .prepare(sql)
          .pluck()
          .get(...args) ?? 0,
      );
    expect(count('SELECT COUNT(*) FROM change_log'), 'the pull logged its records').toBeGreaterThan(3 * PAGE);
    // Each page's collection reads from the cursor: only the last page's own entries, written
    // after that page's collection, may lie beyond it (before, all of them did).
    const cursor = count("SELECT value FROM meta WHERE key = 'sync_outbox_seq'");
    expect(count('SELECT COUNT(*) FROM change_log WHERE seq > ?', cursor), 'entries past the collection cursor').toBeLessThanOrEqual(PAGE);

    const rec = SYNTH.record(7);
    await local.admin.setValue(rec, SYNTH.field('Medium Text'), 'edited after the pull');
    await syncRun(local, remoteId);
    const pushed = gate.seen.filter((s) => s.startsWith('POST') && s.includes(rec));
    expect(pushed.length, 'the edit went out').toBeGreaterThan(0);
  });
});
