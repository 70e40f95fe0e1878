import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { TestService } from '../support/service.js';
import { attachedPair, restoreRecord, syncRun, type RemoteProc } from './support.js';

// A pulled record shows the server's internal id, unless a record deleted here had that id: a
// script holding it would then read another record. The server hands out ids on its own, so a
// record made there can bring the id of one made and deleted here (migrations/028_retired_ids.ts).

const DS = SYNTH.dataset;
let remote: RemoteProc;
let local: TestService;
let remoteId: number;

const internalIdOf = (uuid: string) =>
  local.service.ctx.db.prepare('SELECT internal_id FROM records WHERE uuid = ?').pluck().get(uuid) as number | undefined;

attachedPair(3, (p) => ({ remote, local, remoteId } = p));

describe('a pulled record whose server id a record deleted here had', () => {
  it('takes a new id here; the deleted one, restored, takes its own back', async () => {
    // Made here and deleted before any push: the server never hears of it.
    const mine = (await local.admin.createRecord(DS)).record_uuid;
    const gone = internalIdOf(mine)!;
    await local.admin.deleteRecords([mine]);
    // Both sides hold the same records, so the server's next id is the one just given up here.
    const theirs = await remote.client.createRecord(DS);
    expect(theirs.internal_id, 'the server made a record with the id deleted here').toBe(gone);

    await syncRun(local, remoteId);
    const pulled = internalIdOf(theirs.record_uuid);
    expect(pulled, 'pulled').toBeDefined();
    expect(pulled).toBeGreaterThan(gone);
    expect((await local.admin.record(theirs.record_uuid)).internal_id).toBe(pulled);

    const res = await restoreRecord(local, mine);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(internalIdOf(mine)).toBe(gone);
  });
});
