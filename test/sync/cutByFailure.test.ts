import { expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { TestService } from '../support/service.js';
import { gatedPair, onBothServers, pushOnly, syncRun, type GatedPair } from './support.js';

// A push cut by a failure after the server took some of a record's writes, the last of which
// did not answer with the top-level record (a child's write, a delete, a write before one of
// those): the sent operations were marked done, but the base kept the fields as they were
// before them. The next edit of such a field was then parked as a conflict with our own value
// sent before. The base now takes the values sent (pushCut.ts, sentBase.ts).

const MEDIUM = SYNTH.field('Medium Text');
const LONG = SYNTH.field('Long Text');
const BOOL = SYNTH.field('Boolean');
const MS = SYNTH.field('Multiple Select');
const SR = SYNTH.field('Single Radio');
const NOTES = SYNTH.childField(3);

const entry = (r: OdrRecord, f: string) => r.fields.find((x) => x.field_uuid === f);
const valueOf = (r: OdrRecord, f: string) => entry(r, f)?.value ?? '';
const flag = (r: OdrRecord) => Number(entry(r, BOOL)?.selected ?? 0);
const sel = (r: OdrRecord, f: string) => (entry(r, f)?.values ?? []).map((v) => v.template_radio_option_uuid).sort();
/** The conflicts of a record tree (its top-level record and the child named). */
const conflictsOf = (local: TestService, ...records: string[]) =>
  local.service.sync.conflicts().filter((c) => records.includes(c.record_uuid));
const firstChild = async (local: TestService, rec: string) => (await local.admin.record(rec)).records[0]!.record_uuid;

onBothServers((realServer) => {
  let p: GatedPair;
  gatedPair(40, realServer, (pair) => (p = pair));

  /**
   * One push, whose write of `rec`'s Long Text (queued last, after `edits`) the server answers
   * 503: the push fails there, after the server took the writes before it.
   */
  async function cutPush(rec: string, edits: () => Promise<unknown>): Promise<void> {
    const { local, remoteId, gate } = p;
    await edits();
    await local.admin.setValue(rec, LONG, 'refused by a failure');
    const held = gate.hold((method, path) => method === 'POST' && path === `/api/v4/record/${rec}/${LONG}/value`);
    const push = pushOnly(local, remoteId);
    await held.reached;
    held.release({ status: 503, message: 'unavailable (test)' });
    expect((await push)?.message).toContain('unavailable (test)');
  }

  it("a child's write, then a failure: that child field's next edit is pushed, no conflict with our own", async () => {
    const { local, remote, remoteId } = p;
    const rec = SYNTH.record(0);
    const child = await firstChild(local, rec);
    await cutPush(rec, () => local.admin.setValue(child, NOTES, 'first here'));
    expect(valueOf(await remote.client.record(child), NOTES), 'the server took the first write').toBe('first here');

    await local.admin.setValue(child, NOTES, 'second here');
    await syncRun(local, remoteId);
    expect(conflictsOf(local, rec, child)).toEqual([]);
    expect(valueOf(await remote.client.record(child), NOTES)).toBe('second here');
    expect(valueOf(await remote.client.record(rec), LONG)).toBe('refused by a failure');
    expect(local.service.sync.status().pending).toBe(0);
  });

  it("writes, a child's delete, then a failure: those fields' next edits are pushed, no conflict with our own", async () => {
    const { local, remote, remoteId } = p;
    const rec = SYNTH.record(10);
    const child = await firstChild(local, rec);
    const was = flag(await local.admin.record(rec));
    await cutPush(rec, async () => {
      await local.admin.setValue(rec, MEDIUM, 'first here');
      await local.admin.setValue(rec, BOOL, 1 - was);
      await local.admin.deleteRecords([child]);
    });
    const there = await remote.client.record(rec);
    expect([valueOf(there, MEDIUM), flag(there)], 'the server took the writes').toEqual(['first here', 1 - was]);
    expect(there.records.map((c) => c.record_uuid)).not.toContain(child);

    await local.admin.setValue(rec, MEDIUM, 'second here');
    await local.admin.setValue(rec, BOOL, was);
    await syncRun(local, remoteId);
    expect(conflictsOf(local, rec, child)).toEqual([]);
    const after = await remote.client.record(rec);
    expect([valueOf(after, MEDIUM), flag(after), valueOf(after, LONG)]).toEqual(['second here', was, 'refused by a failure']);
    expect(local.service.sync.status().pending).toBe(0);
  });

  it("option writes, a child's write, then a failure: those options' next edits are pushed, no conflict with our own", async () => {
    const { local, remote, remoteId } = p;
    const rec = SYNTH.record(20);
    const child = await firstChild(local, rec);
    const here = await local.admin.record(rec);
    const x = [1, 2, 3, 4, 5].map((k) => SYNTH.option('Multiple Select', k)).find((o) => !sel(here, MS).includes(o))!;
    const [y, z] = [1, 2, 3].map((k) => SYNTH.option('Single Radio', k)).filter((o) => !sel(here, SR).includes(o));
    await cutPush(rec, async () => {
      await local.admin.setOption(rec, MS, x, true);
      await local.admin.setOption(rec, SR, y!, true);
      await local.admin.setValue(child, NOTES, 'child here');
    });
    const there = await remote.client.record(rec);
    expect([sel(there, MS).includes(x), sel(there, SR)], 'the server took the writes').toEqual([true, [y]]);

    await local.admin.setOption(rec, MS, x, false);
    await local.admin.setOption(rec, SR, z!, true);
    await syncRun(local, remoteId);
    expect(conflictsOf(local, rec, child)).toEqual([]);
    const after = await remote.client.record(rec);
    expect([sel(after, MS).includes(x), sel(after, SR)]).toEqual([false, [z]]);
    expect(local.service.sync.status().pending).toBe(0);
  });
});
