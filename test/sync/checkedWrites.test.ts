import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { PUBLIC_DATE_FIELD } from '../../shared/schemas/sync.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { ADMIN, type TestService } from '../support/service.js';
import { attachedPair, onBothServers, type RemoteProc } from './support.js';

// Options of a multi-option field or tag set, and a record's public date, were written to the
// server without looking at it first: a change made there since the last sync was overwritten
// without a word. They are now checked as values are (docs/sync.md §5).

const MS = SYNTH.field('Multiple Select');
let remote: RemoteProc;
let local: TestService;
let remoteId: number;

const user = () => local.service.domain.users.firstSuperUser()!;
const run = async () => {
  const s = await local.service.sync.run(remoteId, user(), [SYNTH.dataset]);
  expect(s.error).toBeUndefined();
  return s;
};
const pullOnly = () => local.service.sync.engine(remoteId, user()).pull(SYNTH.dataset);
const sel = (r: OdrRecord, f: string) =>
  (r.fields.find((x) => x.field_uuid === f)?.values ?? []).map((v) => v.template_radio_option_uuid).sort();
const publicOf = (r: OdrRecord) => r._record_metadata._public_date;
const conflictsOf = (rec: string) => local.service.sync.conflicts().filter((c) => c.record_uuid === rec);
/** Options of the field selected on neither side. */
async function freeOptions(rec: string): Promise<string[]> {
  const here = sel(await local.admin.record(rec), MS);
  return [1, 2, 3, 4, 5].map((k) => SYNTH.option('Multiple Select', k)).filter((o) => !here.includes(o));
}
const setPublic = (side: 'here' | 'there', rec: string, date: string) =>
  (side === 'here' ? local.admin : remote.client).setPublic({
    user_email: ADMIN.email,
    dataset_uuid: SYNTH.dataset,
    record_uuid: rec,
    public_date: date,
  });

onBothServers((realServer) => {
  attachedPair(14, (p) => ({ remote, local, remoteId } = p), { gated: realServer, realServer });

  describe('an option of a multi-option field, before it is written', () => {
    it('turned back off here while the server turned it on: a conflict, the server keeps it until the user chooses', async () => {
      const rec = SYNTH.record(1);
      const [x, y] = await freeOptions(rec);
      await local.admin.setOption(rec, MS, x!, true);
      await local.admin.setOption(rec, MS, x!, false);
      await remote.client.setOption(rec, MS, x!, true);
      // Another option selected there is no conflict: each option is its own set operation.
      await remote.client.setOption(rec, MS, y!, true);
      await run();
      expect(sel(await remote.client.record(rec), MS), 'not undone on the server').toEqual(expect.arrayContaining([x, y]));
      const name = (o: string) => `Multiple Select option ${o.slice(-1)}`;
      expect(conflictsOf(rec)).toHaveLength(1);
      const [c] = conflictsOf(rec);
      expect(c!.field_uuid).toBe(MS);
      expect(c!.theirs).toContain(name(x!));
      expect(c!.mine ?? '').not.toContain(name(x!));
      expect(sel(await local.admin.record(rec), MS)).toContain(y);
      expect(sel(await local.admin.record(rec), MS)).not.toContain(x);

      local.service.sync.resolve(c!.id, 'mine', local.service.domain.users.firstSuperUser()!);
      await run();
      expect(sel(await remote.client.record(rec), MS)).not.toContain(x);
      expect(sel(await remote.client.record(rec), MS)).toContain(y);
      expect(sel(await local.admin.record(rec), MS)).toEqual(sel(await remote.client.record(rec), MS));
      expect(conflictsOf(rec)).toEqual([]);
    });

    it('"keep theirs" takes the server\'s selection here and sends nothing', async () => {
      const rec = SYNTH.record(2);
      const [x] = await freeOptions(rec);
      await local.admin.setOption(rec, MS, x!, true);
      await local.admin.setOption(rec, MS, x!, false);
      await remote.client.setOption(rec, MS, x!, true);
      await run();
      const [c] = conflictsOf(rec);
      local.service.sync.resolve(c!.id, 'theirs', local.service.domain.users.firstSuperUser()!);
      await run();
      expect(sel(await local.admin.record(rec), MS)).toContain(x);
      expect(sel(await remote.client.record(rec), MS)).toContain(x);
      expect(local.service.sync.status().pending).toBe(0);
    });

    it('"keep theirs" sets only the option in conflict: another one selected here since stays, on both sides', async () => {
      const rec = SYNTH.record(13);
      const [x, z] = await freeOptions(rec);
      await local.admin.setOption(rec, MS, x!, true);
      await local.admin.setOption(rec, MS, x!, false);
      await remote.client.setOption(rec, MS, x!, true);
      await run();
      const [c] = conflictsOf(rec);
      await local.admin.setOption(rec, MS, z!, true);
      await run();
      expect(sel(await remote.client.record(rec), MS)).toContain(z);
      local.service.sync.resolve(c!.id, 'theirs', local.service.domain.users.firstSuperUser()!);
      await run();
      const here = sel(await local.admin.record(rec), MS);
      expect(here).toEqual(expect.arrayContaining([x, z]));
      expect(here).toEqual(sel(await remote.client.record(rec), MS));
      expect(local.service.sync.status().pending).toBe(0);
    });

    it('an option the server turned off after a pull merged it here is not turned on again by the older edit', async () => {
      const rec = SYNTH.record(3);
      const [x] = await freeOptions(rec);
      await local.admin.setOption(rec, MS, x!, true);
      await remote.client.setOption(rec, MS, x!, true);
      await pullOnly();
      await remote.client.setOption(rec, MS, x!, false);
      // The merge applies the server's removal here; the edit "on" still waits in the outbox.
      await pullOnly();
      expect(sel(await local.admin.record(rec), MS)).not.toContain(x);
      await run();
      expect(sel(await remote.client.record(rec), MS), 'the removal there stands').not.toContain(x);
      expect(sel(await local.admin.record(rec), MS)).not.toContain(x);
      expect(local.service.sync.status().pending).toBe(0);
    });
  });

  describe("a record's public date, before it is written", () => {
    it('changed on both sides: a conflict shown like a field\'s; "keep mine" sends ours over exactly theirs', async () => {
      const rec = SYNTH.record(4);
      const base = publicOf(await local.admin.record(rec));
      await setPublic('here', rec, '2031-01-02 03:04:05');
      await setPublic('there', rec, '2032-02-03 04:05:06');
      await run();
      expect(publicOf(await remote.client.record(rec)), 'not overwritten').toBe('2032-02-03 04:05:06');
      expect(conflictsOf(rec).map((c) => [c.field_uuid, c.field_name, c.base, c.mine, c.theirs])).toEqual([
        [PUBLIC_DATE_FIELD, 'Public date', base, '2031-01-02 03:04:05', '2032-02-03 04:05:06'],
      ]);
      expect(() =>
        local.service.sync.resolve(conflictsOf(rec)[0]!.id, 'merged', local.service.domain.users.firstSuperUser()!, 'x'),
      ).toThrow(/"mine" or "theirs"/);
      local.service.sync.resolve(conflictsOf(rec)[0]!.id, 'mine', local.service.domain.users.firstSuperUser()!);
      await run();
      expect(publicOf(await remote.client.record(rec))).toBe('2031-01-02 03:04:05');
      expect(publicOf(await local.admin.record(rec))).toBe('2031-01-02 03:04:05');
      expect(conflictsOf(rec)).toEqual([]);
    });

    it('"keep theirs" sets the server\'s date here and sends nothing', async () => {
      const rec = SYNTH.record(5);
      await setPublic('here', rec, '2033-01-01 00:00:00');
      await setPublic('there', rec, '2034-01-01 00:00:00');
      await run();
      local.service.sync.resolve(conflictsOf(rec)[0]!.id, 'theirs', local.service.domain.users.firstSuperUser()!);
      await run();
      expect(publicOf(await local.admin.record(rec))).toBe('2034-01-01 00:00:00');
      expect(publicOf(await remote.client.record(rec))).toBe('2034-01-01 00:00:00');
      expect(local.service.sync.status().pending).toBe(0);
    });

    it('changed here only: sent as before, no conflict', async () => {
      const rec = SYNTH.record(6);
      await setPublic('here', rec, '2035-01-01 00:00:00');
      await run();
      expect(publicOf(await remote.client.record(rec))).toBe('2035-01-01 00:00:00');
      expect(conflictsOf(rec)).toEqual([]);
    });
  });
});
