import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { TestService } from '../support/service.js';
import { attachedPair, setPublicDate, storeFile, type RemoteProc } from './support.js';

// A record with file bytes stored here (uploaded here, or kept offline) is always merged field by
// field, never replaced. The merge compared fields only, so a public date the server changed never
// arrived: a record the server had made private stayed public here (review 6, finding 3).

const INT = SYNTH.field('Integer');
let remote: RemoteProc;
let local: TestService;
let remoteId: number;

attachedPair(4, (p) => ({ remote, local, remoteId } = p));

const run = async () => {
  const s = await local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
  expect(s.error).toBeUndefined();
  return s;
};
const value = (r: OdrRecord, f: string) => r.fields.find((x) => x.field_uuid === f)?.value;
const publicDate = (r: OdrRecord) => r._record_metadata._public_date;
const storeFileHere = (rec: string, name: string) => storeFile(local.admin, rec, name);

describe('a record merged because a file of it is stored here', () => {
  it("takes the server's public date with its other changes, and sends nothing back", async () => {
    const rec = SYNTH.record(1);
    await storeFileHere(rec, 'here.txt');
    await run();
    expect(publicDate(await local.admin.record(rec))).not.toBe('2038-01-01 00:00:00');
    await setPublicDate(remote.client, rec, '2038-01-01 00:00:00');
    await remote.client.setValue(rec, INT, 902);
    await run();
    const here = await local.admin.record(rec);
    expect(value(here, INT)).toBe(902);
    expect(publicDate(here)).toBe('2038-01-01 00:00:00');
    expect(local.service.sync.conflicts()).toEqual([]);
    const again = await run();
    expect(again.pushed).toBe(0);
    expect(publicDate(await remote.client.record(rec))).toBe('2038-01-01 00:00:00');
  });

  it('a public date set here and sent stays, and a later server change of it arrives', async () => {
    const rec = SYNTH.record(2);
    await storeFileHere(rec, 'here2.txt');
    await setPublicDate(local.admin, rec, '2036-01-01 00:00:00');
    await run();
    expect(publicDate(await remote.client.record(rec))).toBe('2036-01-01 00:00:00');
    expect(publicDate(await local.admin.record(rec))).toBe('2036-01-01 00:00:00');
    await setPublicDate(remote.client, rec, '2037-01-01 00:00:00');
    await run();
    expect(publicDate(await local.admin.record(rec))).toBe('2037-01-01 00:00:00');
    expect(local.service.sync.conflicts()).toEqual([]);
  });

  it('takes a child the server added, and leaves one deleted here alone', async () => {
    const rec = SYNTH.record(3);
    await storeFileHere(rec, 'here3.txt');
    await run();
    const kids = (r: OdrRecord) => r.records.map((c) => c.record_uuid).sort();
    const before = kids(await remote.client.record(rec));
    await remote.client.save({ record_uuid: rec, records: [{ record_uuid: '', database_uuid: SYNTH.child, fields: [] }] });
    const there = kids(await remote.client.record(rec));
    const added = there.filter((u) => !before.includes(u));
    expect(added).toHaveLength(1);
    await run();
    expect(kids(await local.admin.record(rec))).toEqual(there);
    expect((await run()).pushed).toBe(0);
    expect(kids(await remote.client.record(rec))).toEqual(there);
    expect(local.service.sync.conflicts()).toEqual([]);

    // Deleted here, its delete not sent yet: a pull of a server change does not bring it back.
    await local.admin.deleteRecords([added[0]!]);
    await remote.client.setValue(rec, INT, 903);
    await local.service.sync.engine(remoteId, local.service.domain.users.firstSuperUser()!).pull(SYNTH.dataset);
    expect(kids(await local.admin.record(rec))).not.toContain(added[0]);
    expect(value(await local.admin.record(rec), INT)).toBe(903);
    await run();
    expect(kids(await remote.client.record(rec))).not.toContain(added[0]);
    expect(kids(await local.admin.record(rec))).toEqual(kids(await remote.client.record(rec)));
  });
});
