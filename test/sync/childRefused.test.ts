import { expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { gatedPair, pushOnly, type GatedPair } from './support.js';

// A real ODR server applies a write on a child record and then answers 400 "Only permitted on
// top-level datarecords": that answer counts as done. Any other 400 on a child write is a refusal
// that wrote nothing; it was taken for done too, so the base claimed our value, and the next pull
// put the server's value over ours with no conflict and nothing parked (review 12, finding 1).
// The remote is behind a gate acting as a real server (read first, no guarded writes).

const LONG = SYNTH.field('Long Text');
const NOTES = SYNTH.childField(3);
const valueOf = (r: OdrRecord, f: string) => r.fields.find((x) => x.field_uuid === f)?.value ?? '';

let p: GatedPair;
gatedPair(40, true, (pair) => (p = pair));

/** One push in which the child's value write is answered `childAnswer`, and the top record's write 503. */
async function push(rec: string, child: string, childAnswer: { status: number; message: string; applied?: boolean }) {
  const { local, remoteId, gate } = p;
  const onChild = gate.hold((m, path) => m === 'POST' && path === `/api/v4/record/${child}/${NOTES}/value`);
  const pushed = pushOnly(local, remoteId);
  await onChild.reached;
  const onTop = gate.hold((m, path) => m === 'POST' && path === `/api/v4/record/${rec}/${LONG}/value`);
  onChild.release(childAnswer);
  await onTop.reached;
  onTop.release({ status: 503, message: 'unavailable (test)' });
  await pushed;
}

it("a child write refused with a 400 other than the real server's quirk is parked, and the next sync keeps our value", async () => {
  const { local, remote, remoteId } = p;
  const rec = SYNTH.record(0);
  const child = (await local.admin.record(rec)).records[0]!.record_uuid;
  const theirs = valueOf(await remote.client.record(rec).then((r) => r.records[0]!), NOTES);
  await local.admin.setValue(child, NOTES, 'mine, refused');
  await local.admin.setValue(rec, LONG, 'cut here');
  await push(rec, child, { status: 400, message: 'Field does not belong to this datatype (test)' });

  const parked = local.service.sync.status().needsAttention.filter((a) => a.record_uuid === child);
  expect(parked.length, 'the refused child write is parked with the server words').toBeGreaterThan(0);
  // The next sync (the top record's write goes through now) leaves our value, never the server's.
  await local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
  const here = valueOf((await local.admin.record(rec)).records[0]!, NOTES);
  expect(here).toBe('mine, refused');
  expect(valueOf(await remote.client.record(rec).then((r) => r.records[0]!), NOTES)).toBe(theirs);
});

it("the real server's 400 after a child write it did counts as done: nothing parked, no conflict", async () => {
  const { local, remote, remoteId } = p;
  const rec = SYNTH.record(10);
  const child = (await local.admin.record(rec)).records[0]!.record_uuid;
  await local.admin.setValue(child, NOTES, 'mine, taken');
  await local.admin.setValue(rec, LONG, 'cut here too');
  await push(rec, child, { status: 400, message: 'Only permitted on top-level datarecords', applied: true });

  expect(valueOf(await remote.client.record(rec).then((r) => r.records[0]!), NOTES)).toBe('mine, taken');
  expect(local.service.sync.status().needsAttention.filter((a) => a.record_uuid === child)).toEqual([]);
  await local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
  expect(valueOf((await local.admin.record(rec)).records[0]!, NOTES)).toBe('mine, taken');
  expect(local.service.sync.conflicts().filter((c) => [rec, child].includes(c.record_uuid))).toEqual([]);
  expect(local.service.sync.status().pending).toBe(0);
});
