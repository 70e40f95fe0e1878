import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { LiveStatus, SyncStatus } from '../../shared/schemas/sync.js';
import { retryDelay } from '../../electron/service/sync/live.js';
import { parseRetryAfter } from '../../electron/service/sync/remoteClient.js';
import { ADMIN, type TestService } from '../support/service.js';
import { runCli } from '../support/processes.js';
import { attachedPair, type RemoteProc } from './support.js';

// Live (proxy) mode between two real processes: nobody calls "sync"; edits travel on their own,
// a stopped remote shows as offline with the count of waiting changes and drains when back,
// and a refused login pauses live mode with the reason.

const TEXT = SYNTH.field('Medium Text');
let remote: RemoteProc;
let local: TestService;
let remoteId: number;

const value = (r: { fields: { field_uuid: string; value?: unknown }[] }, f: string) => r.fields.find((x) => x.field_uuid === f)?.value;
const localUrl = (p: string) => local.api.replace(/\/api\/v4$/, `/local${p}`);
const call = async (method: string, p: string, body?: unknown) => {
  const res = await fetch(localUrl(p), {
    method,
    headers: { Authorization: `Bearer ${local.admin.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
/** The remote's own client, logged in afresh (its tokens live 4 s here). */
const rc = async () => {
  await remote.client.login(ADMIN.email, ADMIN.password);
  return remote.client;
};
const live = async () => SyncStatus.parse((await call('GET', '/sync')).body).live[0]!;

/** Polls `fn` every 200 ms until it returns something truthy; fails after `ms`. */
async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end)
      throw new Error(`timed out after ${ms} ms waiting for ${what}; live status: ${JSON.stringify(await live().catch((e) => String(e)))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// Tokens expire after 4 s, so the local side logs in again often (and meets a changed password).
attachedPair(20, (p) => ({ remote, local, remoteId } = p), { remoteEnv: { ODR_TOKEN_TTL: '4' }, local: { liveSync: true } });

describe('live sync (two processes, nobody runs a sync)', () => {
  it('takes its settings over HTTP and refuses bad ones', async () => {
    const bad = await call('PUT', `/sync/remotes/${remoteId}/live`, { pull_seconds: -1 });
    expect(bad.status).toBe(400);
    expect((bad.body.error as { message: string }).message).toMatch(/pull_seconds must be 0 or more/);
    expect((await call('PUT', '/sync/remotes/999/live', { pull_seconds: 1 })).status).toBe(404);
    const ok = await call('PUT', `/sync/remotes/${remoteId}/live`, { pull_seconds: 1 });
    expect(ok.status).toBe(200);
    expect(LiveStatus.parse(ok.body)).toMatchObject({ enabled: true, pull_seconds: 1 });
    await until('online', async () => (await live()).state === 'online', 10_000);
  });

  it('pushes a local edit within seconds, and pulls a remote edit with no click', async () => {
    const t0 = Date.now();
    await local.admin.setValue(SYNTH.record(1), TEXT, 'live here');
    await until('the edit on the remote', async () => value(await (await rc()).record(SYNTH.record(1)), TEXT) === 'live here', 10_000);
    expect(Date.now() - t0).toBeLessThan(10_000);
    await (await rc()).setValue(SYNTH.record(2), TEXT, 'live there');
    await until('the remote edit here', async () => value(await local.admin.record(SYNTH.record(2)), TEXT) === 'live there', 10_000);
    const s = await live();
    expect([s.state, s.pending]).toEqual(['online', 0]);
    expect(s.last_sync).toBeTruthy();
  });

  it('a stopped remote shows offline since … with the changes waiting; started again, the queue drains', async () => {
    await remote.halt();
    await local.admin.setValue(SYNTH.record(3), TEXT, 'while offline 1');
    await local.admin.setValue(SYNTH.record(4), TEXT, 'while offline 2');
    const off = await until(
      'offline with 2 waiting',
      async () => {
        const s = await live();
        return s.state === 'offline' && s.pending === 2 && s;
      },
      15_000,
    );
    expect(off.since).toBeTruthy();
    expect(off.reason).toBeTruthy();
    expect(off.next_try).toBeTruthy();
    // Local writes never wait on the network.
    const t = Date.now();
    await local.admin.setValue(SYNTH.record(5), TEXT, 'still fast');
    expect(Date.now() - t).toBeLessThan(1000);

    await remote.restart();
    await until(
      'drained',
      async () => {
        const s = await live();
        return s.state === 'online' && s.pending === 0;
      },
      40_000,
    );
    const vals = await Promise.all([3, 4, 5].map(async (i) => value(await (await rc()).record(SYNTH.record(i)), TEXT)));
    expect(vals).toEqual(['while offline 1', 'while offline 2', 'still fast']);
  });

  it('streams the status as `sync` events, and records changed by a pull as `records` events', async () => {
    const ctl = new AbortController();
    const res = await fetch(localUrl(`/events?access_token=${local.admin.token}`), { signal: ctl.signal });
    const reader = res.body!.getReader();
    let text = '';
    const seen = (async () => {
      while (!/event: sync\ndata: .*"state":"online"/.test(text) || !text.includes(SYNTH.record(7))) {
        const { value: chunk, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(chunk);
      }
    })();
    await (await rc()).setValue(SYNTH.record(7), TEXT, 'announced');
    await call('POST', '/sync/focus');
    await Promise.race([seen, new Promise((r) => setTimeout(r, 10_000))]);
    ctl.abort();
    expect(text).toMatch(new RegExp(`event: records\ndata: .*${SYNTH.record(7)}`));
    expect(text).toMatch(/event: sync\ndata: .*"remote_id":/);
    const data = text.split('event: sync\ndata: ').pop()!.split('\n')[0]!;
    expect(LiveStatus.parse(JSON.parse(data)).url).toBe(remote.url);
  });

  it('a refused login pauses live mode and says why; attaching again resumes it', async () => {
    await remote.halt();
    const pw = runCli(['user', 'password', '--email', ADMIN.email, '--password', 'a-new-password-2', '--data', remote.dataDir]);
    await pw.waitFor(/password changed/);
    await pw.exited;
    await remote.restart().catch(() => undefined); // its own test client logs in with the old password
    await call('POST', '/sync/focus');
    const paused = await until(
      'paused',
      async () => {
        const s = await live();
        return s.state === 'paused' && s;
      },
      20_000,
    );
    expect(paused.reason).toMatch(/refused the login/);
    await local.admin.setValue(SYNTH.record(6), TEXT, 'after the pause');
    await new Promise((r) => setTimeout(r, 2500));
    expect((await live()).state).toBe('paused'); // no retry storm against a refusing server

    await local.service.sync.addRemote(remote.url, ADMIN.email, 'a-new-password-2');
    await until(
      'online again',
      async () => {
        const s = await live();
        return s.state === 'online' && s.pending === 0;
      },
      20_000,
    );
  });
});

describe('backoff', () => {
  it('grows exponentially with jitter, caps, and honours Retry-After', () => {
    const lo = () => 0;
    const hi = () => 0.999;
    expect([1, 2, 3, 4].map((n) => retryDelay(n, null, lo))).toEqual([500, 1000, 2000, 4000]);
    expect(retryDelay(3, null, hi)).toBeGreaterThan(3990);
    expect(retryDelay(20, null, hi)).toBeLessThanOrEqual(30_000);
    // The cap is a setting (ServiceConfig.liveMaxBackoffMs).
    expect([9, 20].map((n) => retryDelay(n, null, lo, 600_000))).toEqual([128_000, 300_000]);
    expect(retryDelay(1, 7000, lo)).toBe(7000);
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter(new Date(Date.now() + 60_000).toUTCString())).toBeGreaterThan(55_000);
    expect(parseRetryAfter('soon')).toBeNull();
  });
});
