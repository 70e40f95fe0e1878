import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { ADMIN, type TestService } from '../support/service.js';
import { faultProxy, startLocal, startRemote, type FaultProxy, type RemoteProc } from './support.js';
import { seededRandom as prng } from '../../shared/seededRandom.js';

// A fault-injecting HTTP proxy (mockttp, support.ts) between the local service's sync engine and the remote
// service process: connections reset before the remote sees the request, 500s, delays, and
// responses lost after the remote committed.

const FIELDS = [SYNTH.field('Medium Text'), SYNTH.field('Long Text')];
let remote: RemoteProc;
let local: TestService;
let proxy: FaultProxy;

const SEED = Number(process.env.SYNC_FUZZ_SEED ?? 20261122);
// Two streams: the edit plan depends on the seed alone, not on how many requests a sync makes
// (each request draws from the fault stream).
const rand = prng(SEED);
const faultRand = prng(SEED ^ 0x5eed);
const pick = <T>(xs: T[], r = rand) => xs[Math.floor(r() * xs.length)]!;

beforeAll(async () => {
  remote = await startRemote(40);
  local = await startLocal();
  proxy = await faultProxy(remote.url, faultRand);
}, 60_000);
afterAll(async () => {
  await proxy?.stop();
  await local?.close();
  await remote?.stop();
});

describe('randomized sync under faults', () => {
  it(`every edit lands once, conflicts are exactly the fields edited on both sides, nothing duplicated (seed ${SEED})`, async () => {
    const remoteId = await local.service.sync.addRemote(`${proxy.url}/api/v4`, ADMIN.email, ADMIN.password);
    const me = local.service.domain.users.firstSuperUser()!;
    const sync = () => local.service.sync.run(remoteId, me, [SYNTH.dataset]);
    expect((await sync()).error).toBeUndefined();
    const initial = (await remote.client.recordIds(SYNTH.dataset)).records.length;
    const settle = async () => {
      proxy.rate = 0;
      for (let i = 0; i < 10; i++) {
        const s = await sync();
        if (!s.error && s.pending === 0 && s.pushed === 0 && s.pulled === 0) return;
      }
      throw new Error('sync did not settle once the faults stopped');
    };
    const value = async (client: typeof remote.client, key: string) => {
      const [rec, field] = key.split('|') as [string, string];
      return (await client.record(rec)).fields.find((f) => f.field_uuid === field)?.value;
    };

    // Rounds of concurrent edits and creates on both sides, synced under faults, then settled:
    // a field edited on one side takes that side's last value on both; a field edited on both
    // sides in the same round is a conflict, resolved alternately "mine" and "theirs". A "mine"
    // overrides only the server value it was chosen against: a server edit made before it went
    // out is a new conflict.
    const expected = new Map<string, string>();
    const localCreates: string[] = [];
    const remoteCreates: string[] = [];
    let keptMine = new Map<string, string>();
    let conflictsSeen = 0;
    for (let round = 0; round < 3; round++) {
      const localLast = new Map<string, string>();
      const remoteLast = new Map<string, string>();
      // One field edited on both sides in every round, so conflicts are always exercised.
      const both0 = `${SYNTH.record(Math.floor(rand() * 40))}|${pick(FIELDS)}`;
      const [rec0, field0] = both0.split('|') as [string, string];
      await local.admin.setValue(rec0, field0, `L${round}.both`);
      localLast.set(both0, `L${round}.both`);
      await remote.client.setValue(rec0, field0, `R${round}.both`);
      remoteLast.set(both0, `R${round}.both`);
      for (let i = 0; i < 20; i++) {
        const key = `${SYNTH.record(Math.floor(rand() * 40))}|${pick(FIELDS)}`;
        const [rec, field] = key.split('|') as [string, string];
        const v = `${round}.${i}`;
        if (rand() < 0.5) {
          await local.admin.setValue(rec, field, `L${v}`);
          localLast.set(key, `L${v}`);
        } else {
          await remote.client.setValue(rec, field, `R${v}`);
          remoteLast.set(key, `R${v}`);
        }
      }
      const l = await local.admin.createRecord(SYNTH.dataset);
      await local.admin.setValue(l.record_uuid, FIELDS[0]!, `created here ${round}`);
      localCreates.push(l.record_uuid);
      if (round < 2) {
        const r = await remote.client.createRecord(SYNTH.dataset);
        await remote.client.setValue(r.record_uuid, FIELDS[0]!, `created there ${round}`);
        remoteCreates.push(r.record_uuid);
      }

      proxy.rate = 0.3;
      for (let i = 0; i < 2; i++) await sync();
      await settle();

      // The "mine" choices of the round before: read through `kept`, since keptMine is refilled
      // below while this round's conflicts are resolved.
      const kept = keptMine;
      const mine = (k: string) => localLast.get(k) ?? kept.get(k)!;
      const both = [...remoteLast.keys()].filter((k) => localLast.has(k) || kept.has(k)).sort();
      const conflicts = local.service.sync.conflicts();
      expect(conflicts.map((c) => `${c.record_uuid}|${c.field_uuid}`).sort()).toEqual(both);
      for (const k of both) {
        expect(await value(local.admin, k), k).toBe(mine(k));
        expect(await value(remote.client, k), k).toBe(remoteLast.get(k));
      }
      for (const [k, v] of localLast) if (!remoteLast.has(k)) expected.set(k, v);
      for (const [k, v] of remoteLast) if (!both.includes(k)) expected.set(k, v);
      keptMine = new Map();
      for (const [i, c] of conflicts.entries()) {
        const choice = (i + round) % 2 ? 'mine' : 'theirs';
        local.service.sync.resolve(c.id, choice, local.service.domain.users.firstSuperUser()!);
        const k = `${c.record_uuid}|${c.field_uuid}`;
        expected.set(k, choice === 'mine' ? mine(k) : remoteLast.get(k)!);
        if (choice === 'mine') keptMine.set(k, mine(k));
      }
      conflictsSeen += conflicts.length;
      // The resolutions go out in the next round's faulty syncs (or the final settle).
    }
    await settle();
    expect(local.service.sync.conflicts()).toEqual([]);
    expect(proxy.faults.reset + proxy.faults.error + proxy.faults.lost).toBeGreaterThan(5);
    expect(conflictsSeen).toBeGreaterThan(0);

    for (const [k, v] of expected) {
      expect(await value(local.admin, k), `local ${k}`).toBe(v);
      expect(await value(remote.client, k), `remote ${k}`).toBe(v);
    }

    // No duplicates: the remote gained exactly our creates (each once, with its value) and its own.
    const remoteIds = (await remote.client.recordIds(SYNTH.dataset)).records.map((r) => r.unique_id);
    expect(remoteIds.length).toBe(initial + localCreates.length + remoteCreates.length);
    const mapped = localCreates.map(
      (l) =>
        local.service.ctx.db
          .prepare("SELECT remote_uuid FROM sync_id_map WHERE local_uuid = ? AND state = 'bound'")
          .pluck()
          .get(l) as string,
    );
    expect(new Set(mapped).size).toBe(localCreates.length);
    for (const [i, r] of mapped.entries())
      expect((await remote.client.record(r)).fields.find((f) => f.field_uuid === FIELDS[0])?.value).toBe(`created here ${i}`);
    const localIds = (await local.admin.recordIds(SYNTH.dataset)).records.map((r) => r.unique_id);
    expect(localIds.length).toBe(remoteIds.length);
    for (const r of remoteCreates) expect(localIds).toContain(r);
  }, 180_000);
});
