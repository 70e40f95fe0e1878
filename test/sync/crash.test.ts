import { getLocal, type Mockttp } from 'mockttp';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { runCli } from '../support/processes.js';
import { ADMIN, startService } from '../support/service.js';
import { startRemote, type RemoteProc } from './support.js';

// kill -9 of the local side in the middle of a push, then a fresh process finishes the sync:
// every record made offline reaches the server exactly once, with its values.

const N = 25;
const FIELD = SYNTH.field('Medium Text');
let remote: RemoteProc;
let proxy: Mockttp;
let dataDir = '';

beforeAll(async () => {
  remote = await startRemote(10);
  // A slow link, so that the push takes long enough to be cut in the middle.
  proxy = getLocal();
  await proxy.start();
  const origin = new URL(remote.url).origin;
  await proxy.forAnyRequest().thenPassThrough({
    beforeRequest: async (req) => {
      await new Promise((r) => setTimeout(r, 40));
      return { url: origin + new URL(req.url).pathname + new URL(req.url).search };
    },
  });
}, 60_000);
afterAll(async () => {
  await proxy?.stop();
  await remote?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('crash in the middle of a push', () => {
  it('kill -9 mid-push, restart, finish: no duplicate and no lost record', async () => {
    const remoteApi = `${proxy.url}/api/v4`;
    const local = await startService({ keepDir: true });
    dataDir = local.dataDir;
    const me = local.service.domain.users.firstSuperUser()!;
    const id = await local.service.sync.addRemote(remoteApi, ADMIN.email, ADMIN.password);
    expect((await local.service.sync.run(id, me, [SYNTH.dataset])).error).toBeUndefined();
    for (let i = 0; i < N; i++) {
      const r = await local.admin.createRecord(SYNTH.dataset);
      await local.admin.setValue(r.record_uuid, FIELD, `offline ${i}`);
    }
    await local.close();

    const initial = (await remote.client.recordIds(SYNTH.dataset)).records.length;
    const args = ['sync', '--data', dataDir, '--remote', remoteApi, '--user', ADMIN.email, '--password', ADMIN.password, '--dataset', SYNTH.dataset];
    const first = runCli(args);
    let atKill = 0;
    for (;;) {
      atKill = (await remote.client.recordIds(SYNTH.dataset)).records.length - initial;
      if (atKill >= 3 || first.child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    // Somewhere inside a create/value exchange, not at a request boundary.
    await new Promise((r) => setTimeout(r, Math.random() * 80));
    first.child.kill('SIGKILL');
    const { signal } = await first.exited;
    expect(signal, `the first sync finished before it could be killed:\n${first.output()}`).toBe('SIGKILL');
    expect(atKill).toBeLessThan(N);

    const second = runCli(args);
    expect((await second.exited).code, second.output()).toBe(0);
    expect(second.output()).toMatch(/0 pending, 0 conflict/);

    const ids = (await remote.client.recordIds(SYNTH.dataset)).records.map((r) => r.unique_id);
    expect(ids.length).toBe(initial + N);
    const values: string[] = [];
    for (const u of ids) {
      const v = (await remote.client.record(u)).fields.find((f) => f.field_uuid === FIELD)?.value;
      if (typeof v === 'string' && v.startsWith('offline ')) values.push(v);
    }
    expect(values.sort()).toEqual(Array.from({ length: N }, (_, i) => `offline ${i}`).sort());

    // And the local side holds exactly the same set of records, each bound to its server copy.
    const again = await startService({ dataDir, keepDir: true });
    try {
      expect((await again.admin.recordIds(SYNTH.dataset)).records.length).toBe(initial + N);
      const bound = again.service.ctx.db.prepare("SELECT COUNT(DISTINCT remote_uuid) FROM sync_id_map WHERE state = 'bound'").pluck().get() as number;
      expect(bound).toBe(N);
    } finally {
      await again.close();
    }
  }, 180_000);
});
