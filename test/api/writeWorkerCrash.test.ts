import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { SYNTH } from '../../bench/synthetic.js';
import { createService } from '../../electron/service/service.js';
import { runCli } from '../support/processes.js';
import { ADMIN, startSyntheticService } from '../support/service.js';

// kill -9 of a service process while record edits stream through its write worker: every edit
// it acknowledged is in the database a fresh process opens.

const CLIENTS = 8;
const FIELD = SYNTH.field('Medium Text');
let dataDir = '';
afterAll(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('durability of the write worker', () => {
  it('kill -9 mid-stream: every acknowledged edit survives', async () => {
    const seed = await startSyntheticService(CLIENTS, { keepDir: true });
    dataDir = seed.dataDir;
    await seed.close();

    const proc = runCli(['serve', '--port', '0', '--data', dataDir, '--no-auto-login']);
    const api = (await proc.waitFor(/listening on (\S+)/))[1]!;
    const login = await fetch(`${api}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: ADMIN.email, password: ADMIN.password }),
    });
    const auth = `Bearer ${((await login.json()) as { token: string }).token}`;
    // Per client (one record each): the last write acknowledged, and the one in flight.
    const acked = new Array<number>(CLIENTS).fill(-1);
    let total = 0;
    let killed = false;
    const kill = () => {
      if (!killed) proc.child.kill('SIGKILL');
      killed = true;
    };
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        // Bounded: the kill comes after 60 acknowledgements in all, long before this ends.
        for (let k = 0; k < 200 && !killed; k++) {
          try {
            const res = await fetch(`${api}/record/${SYNTH.record(c)}/${FIELD}/value`, {
              method: 'POST',
              headers: { authorization: auth, 'content-type': 'application/json' },
              body: JSON.stringify({ value: `client ${c} write ${k}` }),
            });
            if (res.status !== 200) throw new Error(`write answered ${res.status}: ${await res.text()}`);
            acked[c] = k;
            if (++total === 60) kill();
          } catch (e) {
            if (!killed) throw e;
          }
        }
      }),
    );
    await proc.exited;
    expect(total).toBeGreaterThanOrEqual(60);
    // The edits went through the worker, not the main thread's fallback.
    expect(proc.output()).not.toContain('write worker stopped');

    const s = await createService({ dataDir, admin: ADMIN, liveSync: false });
    try {
      const user = s.domain.users.firstSuperUser()!;
      for (let c = 0; c < CLIENTS; c++) {
        const rec = s.domain.render(s.domain.record(SYNTH.record(c)), { viewer: user, now: s.domain.now(), apiBase: 'http://x/api/v4' });
        const value = rec.fields.find((f) => f.field_uuid === FIELD)?.value;
        // The acknowledged write, or the one in flight at the kill (committed, not yet answered).
        expect([`client ${c} write ${acked[c]}`, `client ${c} write ${acked[c]! + 1}`], `client ${c}`).toContain(value);
      }
    } finally {
      await s.close();
    }
  }, 60_000);
});
