import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { ADMIN, type TestService } from '../support/service.js';
import { attachedPair, gateProxy, pullOnly, startLocal, startRemote, type AttachedPair, type RemoteProc } from './support.js';

// A pull lists the records changed since its cursor, then fetches them one by one, for minutes
// on a large or slow pull. The next pull's cursor used to be the latest `_update_date` among
// the records fetched: one changed on the server after the listing moved it past changes to
// other records made in between, which no pull then asked for again. The cursor may only move to
// a time the listing is known to cover (docs/sync.md §4). The remote is a second service process,
// reached through a proxy that can hold one request.

const TEXT = SYNTH.field('Medium Text');
const valueOf = (r: OdrRecord) => r.fields.find((x) => x.field_uuid === TEXT)?.value;
const stampOf = (r: OdrRecord) => Date.parse(`${r._record_metadata._update_date!.replace(' ', 'T')}Z`);
const readOf = (rec: string) => `GET /api/v4/dataset/record/${rec}`;

/** The remote's clock, from its Date header (whole seconds, as the modified listing compares). */
async function remoteNow(url: string): Promise<number> {
  const res = await fetch(`${url}/auth/status`);
  await res.body?.cancel();
  return Date.parse(res.headers.get('date')!);
}

/** Waits, bounded, until the remote's clock reads at least `ms` (server writes stamp whole seconds). */
async function remoteClockPast(url: string, ms: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await remoteNow(url)) >= ms) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the remote's clock never reached ${new Date(ms).toISOString()}`);
}

type Gated = Pick<AttachedPair, 'remote' | 'local' | 'remoteId'> & { gate: Awaited<ReturnType<typeof gateProxy>> };

const cursorOf = (p: Gated) =>
  p.local.service.ctx.db.prepare('SELECT cursor FROM sync_datasets WHERE dataset_uuid = ?').pluck().get(SYNTH.dataset) as string | null;

/**
 * `late` is listed as changed and its fetch held; meanwhile `between` changes on the server
 * (after the listing: not in it), then `late` again, well past the overlap the cursor keeps.
 * The pull that fetched `late` cannot have `between`; the next one must.
 */
async function changedWhileFetching(p: Gated, late: string, between: string): Promise<void> {
  await p.remote.client.setValue(late, TEXT, 'late, first change');
  const hold = p.gate.hold((method, path) => `${method} ${path}` === readOf(late));
  const pull = pullOnly(p.local, p.remoteId);
  await hold.reached;
  const changed = stampOf(await p.remote.client.setValue(between, TEXT, 'changed while the pull fetched'));
  await remoteClockPast(p.remote.url, changed + 4000);
  const later = await p.remote.client.setValue(late, TEXT, 'late, changed again');
  expect(stampOf(later) - changed).toBeGreaterThanOrEqual(4000);
  hold.release();
  await pull;
  expect(valueOf(await p.local.admin.record(late))).toBe('late, changed again');
  expect(valueOf(await p.local.admin.record(between)), 'not fetched by that pull (listed before)').not.toBe(
    'changed while the pull fetched',
  );

  await pullOnly(p.local, p.remoteId);
  expect(valueOf(await p.local.admin.record(between))).toBe('changed while the pull fetched');
}

describe('the pull cursor', () => {
  const p = {} as Gated;
  attachedPair(8, (got) => Object.assign(p, got), { gated: true });

  it('a record changed on the server while another one was being fetched comes with the next pull', async () => {
    await changedWhileFetching(p, SYNTH.record(1), SYNTH.record(2));
  }, 60_000);

  it('records changed long before a pull are not read again by the pulls after it', async () => {
    const recs = [3, 4, 5].map(SYNTH.record);
    let last = 0;
    for (const r of recs) last = Math.max(last, stampOf(await p.remote.client.setValue(r, TEXT, `changed ${r}`)));
    await pullOnly(p.local, p.remoteId);
    for (const r of recs) expect(valueOf(await p.local.admin.record(r))).toBe(`changed ${r}`);
    // A pull listed well after those changes: the one after it asks for nothing older.
    await remoteClockPast(p.remote.url, last + 4000);
    await pullOnly(p.local, p.remoteId);
    expect(cursorOf(p)).not.toBeNull();
    const from = p.gate.seen.length;
    await pullOnly(p.local, p.remoteId);
    expect(p.gate.seen.slice(from).filter((r) => r.startsWith('GET /api/v4/dataset/record/'))).toEqual([]);
  }, 60_000);
});

/** A loopback proxy to `target` whose answers carry no Date header (a proxy that drops it). */
async function datelessProxy(target: string) {
  const origin = new URL(target);
  const server = createServer((req, res) => {
    res.sendDate = false;
    const fwd = request(
      { host: origin.hostname, port: origin.port, path: req.url, method: req.method, headers: { ...req.headers, host: origin.host } },
      (up) => {
        const headers = { ...up.headers };
        delete headers.date;
        res.writeHead(up.statusCode ?? 502, headers);
        up.pipe(res);
      },
    );
    fwd.on('error', () => res.destroy());
    req.pipe(fwd);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('a server that sends no Date header', () => {
  // Nothing tells when its listing was taken: the cursor stays where it was (here: none, so each
  // pull reads the dataset whole), and no change is ever behind it.
  const p = {} as Gated;
  let dateless: Awaited<ReturnType<typeof datelessProxy>>;
  beforeAll(async () => {
    p.remote = await startRemote(8);
    p.gate = await gateProxy(p.remote.url);
    dateless = await datelessProxy(p.gate.url);
    p.local = await startLocal();
    p.remoteId = await p.local.service.sync.addRemote(`${dateless.url}/api/v4`, ADMIN.email, ADMIN.password);
    const first = await p.local.service.sync.run(p.remoteId, p.local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
    expect(first.error).toBeUndefined();
  }, 90_000);
  afterAll(async () => {
    await (p.local as TestService | undefined)?.close();
    await dateless?.stop();
    await p.gate?.stop();
    await (p.remote as RemoteProc | undefined)?.stop();
  });

  it('keeps no cursor: each pull reads the dataset whole, so a change made there is never behind it', async () => {
    const res = await fetch(`${dateless.url}/api/v4/auth/status`);
    await res.body?.cancel();
    expect(res.headers.get('date'), 'the proxy drops the header').toBeNull();
    expect(cursorOf(p)).toBeNull();
    const rec = SYNTH.record(2);
    await p.remote.client.setValue(rec, TEXT, 'changed there');
    const from = p.gate.seen.length;
    await pullOnly(p.local, p.remoteId);
    expect(p.gate.seen.slice(from), 'read page by page').toContain(`GET /api/v4/dataset/${SYNTH.dataset}/100/0`);
    expect(valueOf(await p.local.admin.record(rec))).toBe('changed there');
    expect(cursorOf(p)).toBeNull();
  }, 60_000);
});
