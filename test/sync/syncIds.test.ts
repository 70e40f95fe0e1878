import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { TestService } from '../support/service.js';
import { attachedPair, type RemoteProc } from './support.js';

// A conflict's and an outbox entry's id is what the client names (POST /local/sync/conflicts/{id},
// /local/sync/attention/{id}); once handed out it is never handed out again, even after "stop
// syncing" empties both tables (migrations/027_id_floors.ts), so an answer about a row already
// gone cannot reach a newer one.

const DS = SYNTH.dataset;
const TEXT = SYNTH.field('Medium Text');
let remote: RemoteProc;
let local: TestService;
let remoteId: number;

const run = async () => {
  const s = await local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [DS]);
  expect(s.error).toBeUndefined();
  return s;
};
const highest = (table: string) => local.service.ctx.db.prepare(`SELECT MAX(id) FROM ${table}`).pluck().get() as number | null;
const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${local.host.url}/local${path}`, {
    method,
    headers: { Authorization: `Bearer ${local.admin.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.status;
};
/** An edit here and there to the same value, then a sync: one new conflict; answers its id. */
const conflict = async (i: number, round: number) => {
  await local.admin.setValue(SYNTH.record(i), TEXT, `mine ${round}`);
  await remote.client.setValue(SYNTH.record(i), TEXT, `theirs ${round}`);
  await run();
  const [c] = local.service.sync.conflicts();
  expect(c).toBeDefined();
  return c!.id;
};

attachedPair(3, (p) => ({ remote, local, remoteId } = p));

describe('sync ids after stop syncing', () => {
  it('a conflict and an outbox entry after the dataset is synced again get new ids; the old conflict id names nothing', async () => {
    const gone = await conflict(1, 1);
    const goneOutbox = highest('sync_outbox')!;
    expect(gone).toBe(highest('sync_conflicts'));
    expect(await call('DELETE', `/sync/datasets/${DS}?force=true`)).toBe(200);
    expect([highest('sync_conflicts'), highest('sync_outbox')]).toEqual([null, null]);

    await run(); // synced again
    const next = await conflict(2, 2);
    expect(next).toBeGreaterThan(gone);
    expect(local.service.ctx.db.prepare('SELECT MIN(id) FROM sync_outbox').pluck().get()).toBeGreaterThan(goneOutbox);
    // An answer about the first conflict, as from a list shown before the stop.
    expect(await call('POST', `/sync/conflicts/${gone}`, { choice: 'mine' })).toBe(404);
    expect(local.service.sync.conflicts().map((c) => c.id)).toEqual([next]);
  }, 60_000);
});
