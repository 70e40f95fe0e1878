import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { runCli } from '../support/processes.js';
import { ADMIN, startService } from '../support/service.js';
import { startRemote, type RemoteProc } from './support.js';
import { heldWriteProxy, type HeldAt, type HeldWriteProxy } from '../support/heldWrite.js';
import { seededRandom as prng } from '../../shared/seededRandom.js';

// kill -9 of the local side in the middle of pushing files, then a fresh process finishes the
// sync: every file attached offline is on the server exactly once, with its bytes.

const FILES = 10;
// ODR_CRASH_SEED=<n> replays a run (the seed is printed), as in crash.test.ts.
const SEED = Number(process.env.ODR_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const FILE = SYNTH.field('File');
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
let remote: RemoteProc;
let proxy: HeldWriteProxy;
let dataDir = '';

beforeAll(async () => {
  remote = await startRemote(10);
  proxy = await heldWriteProxy(remote.url);
}, 60_000);
afterAll(async () => {
  await proxy?.stop();
  await remote?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The crash files on the server: name -> [sha256 of each copy]. */
async function onServer(): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (let i = 1; i <= 9; i++) {
    const rec = await remote.client.record(SYNTH.record(i));
    for (const f of rec.fields.find((x) => x.field_uuid === FILE)?.files ?? []) {
      if (!f.original_name.startsWith('crash-')) continue;
      out.set(f.original_name, [...(out.get(f.original_name) ?? []), f.file_uuid]);
    }
  }
  return out;
}

describe('crash in the middle of a file push', () => {
  it('kill -9 mid-upload, restart, finish: every file on the server exactly once, bytes intact', async () => {
    const remoteApi = `${proxy.url}/api/v4`;
    const local = await startService({ keepDir: true });
    dataDir = local.dataDir;
    const me = local.service.domain.users.firstSuperUser()!;
    const id = await local.service.sync.addRemote(remoteApi, ADMIN.email, ADMIN.password);
    expect((await local.service.sync.run(id, me, [SYNTH.dataset])).error).toBeUndefined();
    const bytes = new Map<string, Buffer>();
    for (let i = 0; i < FILES; i++) {
      const name = `crash-${i}.bin`;
      const b = randomBytes(100_000 + i * 1000);
      bytes.set(name, b);
      await local.admin.uploadFile(
        { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(1 + (i % 9)), field_uuid: FILE, template_field_uuid: '' },
        { blob: new Blob([b]), name },
      );
    }
    await local.close();

    const args = ['sync', '--data', dataDir, '--remote', remoteApi, '--user', ADMIN.email, '--password', ADMIN.password];
    // The kill point, as in crash.test.ts: the push's `nth` upload held by the proxy before the
    // server sees it or stored there with its answer not passed on; every later write waits too.
    // Uploads run several at once: the seed replays the rank and side, not which file it is.
    const rand = prng(SEED);
    const nth = 1 + Math.floor(rand() * 4);
    const at: HeldAt = rand() < 0.5 ? 'request' : 'answer';
    console.log(`file crash test: ODR_CRASH_SEED=${SEED} (kill at the push's upload ${nth}, held at its ${at})`);
    const hold = proxy.hold(nth, at, (method, p) => method === 'POST' && p.endsWith('/file'));
    const first = runCli([...args, '--dataset', SYNTH.dataset]);
    const held = await Promise.race([hold.held, first.exited.then(() => 'nothing: the sync ended')]);
    console.log(`file crash test: held ${held} (write ${proxy.writes.length} of the push so far)`);
    first.child.kill('SIGKILL');
    const { signal } = await first.exited;
    hold.release();
    expect(signal, `ODR_CRASH_SEED=${SEED}: the first sync ended before its upload ${nth}:\n${first.output()}`).toBe('SIGKILL');
    const atKill = (await onServer()).size;
    expect(atKill).toBeLessThan(FILES);

    const second = runCli([...args, '--dataset', SYNTH.dataset]);
    expect((await second.exited).code, second.output()).toBe(0);
    expect(second.output()).toMatch(/0 pending, 0 conflict/);

    const got = await onServer();
    expect([...got.keys()].sort()).toEqual([...bytes.keys()].sort());
    for (const [name, copies] of got) {
      expect(copies, `${name} on the server ${copies.length} times (ODR_CRASH_SEED=${SEED})`).toHaveLength(1);
      const res = await fetch(`${remote.url}/file/${copies[0]}`, { headers: { Authorization: `Bearer ${remote.client.token}` } });
      expect(sha(new Uint8Array(await res.arrayBuffer())), name).toBe(sha(bytes.get(name)!));
    }
  }, 180_000);
});
