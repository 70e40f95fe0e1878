import { getLocal, type Mockttp } from 'mockttp';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { SYNTH, syntheticTemplate } from '../../bench/synthetic.js';
import { rmSync } from 'node:fs';
import { GUARDED_WRITES_HEADER, OdrClient } from '../../shared/client/odrClient.js';
import { runCli, type Proc } from '../support/processes.js';
import { ADMIN, startService, startSyntheticService, type TestService } from '../support/service.js';
import type { ServiceConfig } from '../../electron/service/domain/context.js';

/** The sync remote: a second service in its own process, seeded with `n` synthetic records. */
export interface RemoteProc {
  url: string;
  proc: Proc;
  client: OdrClient;
  dataDir: string;
  stop: () => Promise<void>;
  /** Stops the process, keeping its data dir (the remote is "unreachable"). */
  halt: () => Promise<void>;
  /** Starts it again on the same port. */
  restart: () => Promise<void>;
}

/** `env`: e.g. ODR_TOKEN_TTL for a remote whose tokens expire quickly. */
/** `template`: another template than the synthetic one (e.g. with a file field on the child). */
export async function startRemote(n: number, env: Record<string, string> = {}, template?: unknown): Promise<RemoteProc> {
  const seeded = await startSyntheticService(n, { keepDir: true, template });
  await seeded.close();
  const r: RemoteProc = {
    url: '',
    proc: undefined as unknown as Proc,
    client: undefined as unknown as OdrClient,
    dataDir: seeded.dataDir,
    stop: async () => {},
    halt: async () => {},
    restart: async () => {},
  };
  const launch = async (port: string) => {
    // A restart keeps the URL the local side has, so it asks for the old port; between the halt
    // and this, the other vitest fork (its port 0, an outgoing connection) can hold that port for
    // a moment. Busy, it is tried again a bounded number of times, 11 s at most in all.
    for (let attempt = 1; ; attempt++) {
      r.proc = runCli(['serve', '--port', port, '--data', seeded.dataDir, '--no-auto-login'], env);
      try {
        r.url = (await r.proc.waitFor(/listening on (http:\/\/\S+)/))[1]!;
        break;
      } catch (e) {
        if (port === '0' || attempt >= 10 || !r.proc.output().includes('EADDRINUSE')) throw e;
        await r.proc.exited;
        await new Promise((res) => setTimeout(res, 250 * attempt));
      }
    }
    r.client = new OdrClient({ baseUrl: r.url });
    await r.client.login(ADMIN.email, ADMIN.password);
  };
  await launch('0');
  r.halt = async () => {
    if (r.proc.child.exitCode !== null) return;
    r.proc.child.kill('SIGTERM');
    await r.proc.exited;
  };
  r.restart = async () => {
    await r.halt();
    await launch(new URL(r.url).port);
  };
  r.stop = async () => {
    await r.halt();
    rmSync(seeded.dataDir, { recursive: true, force: true });
  };
  return r;
}

/**
 * The local side: an empty service (real SQLite file) that will pull from the remote. Live mode
 * is off unless asked for, so tests that sync by hand see only their own passes.
 */
export const startLocal = (opts: { liveSync?: boolean; config?: Partial<ServiceConfig> } = {}): Promise<TestService> =>
  startService({ config: { tokenTtlSeconds: 86400, ...opts.config }, liveSync: opts.liveSync ?? false });

/** A loopback proxy to `remoteUrl` that holds every request `delayMs` first: a slow link, so a push can be cut in the middle. */
export async function slowProxy(remoteUrl: string, delayMs: number): Promise<Mockttp> {
  const proxy = getLocal();
  await proxy.start();
  const origin = new URL(remoteUrl).origin;
  await proxy.forAnyRequest().thenPassThrough({
    beforeRequest: async (req) => {
      await new Promise((r) => setTimeout(r, delayMs));
      return { url: origin + new URL(req.url).pathname + new URL(req.url).search };
    },
  });
  return proxy;
}

export type FaultKind = 'reset' | 'error' | 'lost' | 'delayed';

/**
 * A fault-injecting loopback proxy to `remoteUrl` (mockttp): with probability `rate` a request is
 * reset before the remote sees it, answered 500, delayed, or its answer lost after the remote
 * committed. `outage(true)` resets every request and resolves once no forwarded request is still
 * at the remote, so a test can change the remote knowing the local side cannot see it.
 */
export interface FaultProxy {
  url: string;
  rate: number;
  readonly faults: Record<FaultKind, number>;
  /** Requests the proxy has seen (forwarded or not): live mode's traffic. */
  readonly seen: number;
  outage: (on: boolean) => Promise<void>;
  stop: () => Promise<void>;
}

export async function faultProxy(remoteUrl: string, random: () => number): Promise<FaultProxy> {
  const proxy = getLocal();
  await proxy.start();
  const origin = new URL(remoteUrl).origin;
  const lost = new Set<string>();
  const inFlight = new Set<string>();
  let down = false;
  const kinds: FaultKind[] = ['reset', 'error', 'lost', 'delayed'];
  const fp: FaultProxy & { seen: number } = {
    url: proxy.url,
    rate: 0,
    faults: { reset: 0, error: 0, lost: 0, delayed: 0 },
    seen: 0,
    outage: async (on) => {
      down = on;
      const end = Date.now() + 15_000;
      while (on && inFlight.size) {
        if (Date.now() > end) throw new Error(`${inFlight.size} forwarded requests never finished`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    stop: () => proxy.stop(),
  };
  await proxy.on('response', (res) => inFlight.delete(res.id));
  await proxy.on('abort', (req) => inFlight.delete(req.id));
  await proxy.forAnyRequest().thenPassThrough({
    beforeRequest: async (req) => {
      fp.seen++;
      if (down) return { response: 'reset' as const };
      const forward = { url: origin + new URL(req.url).pathname + new URL(req.url).search };
      // Each request draws the same number of times, so a seed replays the same fault sequence.
      const hit = random() < fp.rate;
      const kind = kinds[Math.floor(random() * kinds.length)]!;
      if (!hit) {
        inFlight.add(req.id);
        return forward;
      }
      fp.faults[kind]++;
      if (kind === 'reset') return { response: 'reset' as const };
      if (kind === 'error')
        return {
          response: {
            statusCode: 500,
            body: '{"error":{"code":500,"message":"injected"}}',
            headers: { 'content-type': 'application/json' },
          },
        };
      if (kind === 'delayed') await new Promise((r) => setTimeout(r, 150));
      if (down) return { response: 'reset' as const };
      if (kind === 'lost') lost.add(req.id);
      inFlight.add(req.id);
      return forward;
    },
    beforeResponse: (_res, req) => (lost.delete(req.id) ? 'close' : undefined),
  });
  return fp;
}

/** An answer the gate gives instead of letting a held request go on (the server refusing it). */
export interface Refusal {
  status: number;
  message: string;
  /** The remote does the request, and this answer replaces its own (a real server's 400 after a child write). */
  applied?: boolean;
}

/** A held request let go to the remote, whose answer is then lost (the connection closed). */
export const LOSE_ANSWER = 'lose-answer';

/**
 * A loopback proxy to `remoteUrl` that can hold one chosen request before it goes on: `hold`
 * returns when that request has arrived (`reached`) and lets it go on `release()`, so a test can
 * change things here while exactly that request is on its way. `release(refusal)` answers it
 * with that error instead; the remote never sees it (unless `applied`: then it does the request
 * and the error replaces its answer). `release(LOSE_ANSWER)`: the remote does the request, its
 * answer never arrives.
 */
export async function gateProxy(remoteUrl: string, opts: { realServer?: boolean; guards?: string } = {}) {
  const proxy = getLocal();
  await proxy.start();
  const origin = new URL(remoteUrl).origin;
  type Release = Refusal | typeof LOSE_ANSWER | undefined;
  let gate: { match: (method: string, path: string) => boolean; reached: () => void; open: Promise<Release> } | null = null;
  const seen: string[] = [];
  const lost = new Set<string>();
  const replaced = new Map<string, Refusal>();
  const answer = (r: Refusal) => ({
    statusCode: r.status,
    body: JSON.stringify({ error: { code: r.status, message: r.message } }),
    headers: { 'content-type': 'application/json' },
  });
  await proxy.forAnyRequest().thenPassThrough({
    beforeRequest: async (req) => {
      const url = new URL(req.url);
      seen.push(`${req.method} ${url.pathname}`);
      const g = gate;
      if (g?.match(req.method, url.pathname)) {
        gate = null;
        g.reached();
        const refusal = await g.open;
        if (refusal === LOSE_ANSWER) lost.add(req.id);
        else if (refusal?.applied) replaced.set(req.id, refusal);
        else if (refusal) return { response: answer(refusal) };
      }
      return { url: origin + url.pathname + url.search };
    },
    beforeResponse: (res, req) => {
      if (lost.delete(req.id)) return 'close';
      const instead = replaced.get(req.id);
      if (instead) {
        replaced.delete(req.id);
        return answer(instead);
      }
      if (!opts.realServer && opts.guards === undefined) return undefined;
      // A real ODR server does not say that it guards writes (it does not): the client must read
      // first. `guards`: what an older odr-desktop says instead (fewer kinds than this one).
      const headers = { ...res.headers };
      if (opts.realServer) delete headers[GUARDED_WRITES_HEADER];
      else headers[GUARDED_WRITES_HEADER] = opts.guards;
      return { headers };
    },
  });
  return {
    url: proxy.url,
    /** Every request that reached the proxy so far, as `METHOD /path`. */
    seen,
    hold(match: (method: string, path: string) => boolean) {
      let reached!: () => void;
      let release!: (how?: Release) => void;
      const arrived = new Promise<void>((r) => (reached = r));
      const open = new Promise<Release>((r) => (release = r));
      gate = { match, reached, open };
      return { reached: arrived, release };
    },
    stop: () => proxy.stop(),
  };
}

export interface AttachedPair {
  remote: RemoteProc;
  local: TestService;
  remoteId: number;
  /** With `gated`: the proxy the local side reaches the remote through. */
  gate?: Awaited<ReturnType<typeof gateProxy>>;
}

/**
 * A remote process with `n` synthetic records and a local service attached to it, the synthetic
 * dataset synced once: started before the file's tests (`ready` hands the pair over), stopped
 * after them. `template`: another template than the synthetic one.
 */
/**
 * `realServer`: the gate hides that the remote guards its writes, as a real ODR server would not
 * say it (docs/sync.md §5). `guards`: the gate says this list of guarded kinds instead.
 * `firstSync: false`: attached only, nothing synced. `local`: the local service's options.
 * `beforeGate`: work on the remote before anything reaches it through the gate (uploads).
 * `remoteEnv`: the remote process's environment (e.g. ODR_TOKEN_TTL, see startRemote).
 */
export function attachedPair(
  n: number,
  ready: (p: AttachedPair) => void,
  opts: {
    template?: () => unknown;
    gated?: boolean;
    realServer?: boolean;
    guards?: string;
    firstSync?: boolean;
    local?: Parameters<typeof startLocal>[0];
    beforeGate?: (remote: RemoteProc) => Promise<void>;
    remoteEnv?: Record<string, string>;
  } = {},
): void {
  let pair: Partial<AttachedPair> = {};
  beforeAll(async () => {
    pair.remote = await startRemote(n, opts.remoteEnv ?? {}, opts.template?.());
    await opts.beforeGate?.(pair.remote);
    if (opts.gated) pair.gate = await gateProxy(pair.remote.url, { realServer: opts.realServer, guards: opts.guards });
    pair.local = await startLocal(opts.local);
    const url = pair.gate ? `${pair.gate.url}/api/v4` : pair.remote.url;
    pair.remoteId = await pair.local.service.sync.addRemote(url, ADMIN.email, ADMIN.password);
    if (opts.firstSync !== false) {
      const first = await pair.local.service.sync.run(pair.remoteId, pair.local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
      if (first.error) throw new Error(`the first sync failed: ${first.error}`);
    }
    ready(pair as AttachedPair);
  }, 90_000);
  afterAll(async () => {
    await pair.local?.close();
    await pair.gate?.stop();
    await pair.remote?.stop();
    pair = {};
  });
}

/**
 * A file's tests once per kind of remote, each with its own pair (`body` starts it): one that
 * guards its writes (an odr-desktop service) and one that does not say so, as a real ODR server,
 * read first (docs/sync.md §5). Both paths carry the push's checks.
 */
export function onBothServers(body: (realServer: boolean) => void): void {
  for (const realServer of [false, true])
    describe(realServer ? 'a real ODR server (read first)' : 'a remote that guards its writes', () => body(realServer));
}

/** A pair whose local side reaches the remote through a gate proxy. */
export type GatedPair = AttachedPair & { gate: NonNullable<AttachedPair['gate']> };

/** `attachedPair` through a gate, of either kind of server (inside `onBothServers`). */
export const gatedPair = (n: number, realServer: boolean, ready: (p: GatedPair) => void) =>
  attachedPair(n, (p) => ready(p as GatedPair), { gated: true, realServer });

/** POST /local/records/{uuid}/restore on the local service (the undo of a delete). */
export async function restoreRecord(local: TestService, uuid: string) {
  const res = await fetch(local.api.replace(/\/api\/v4$/, `/local/records/${uuid}/restore`), {
    method: 'POST',
    headers: { Authorization: `Bearer ${local.admin.token}` },
  });
  return { status: res.status, body: (await res.json()) as { record_uuid?: string; error?: { code: string; message: string } } };
}

/** The server uuid a record made here is bound to (none for a pulled record). */
export const boundRemoteOf = (local: TestService, uuid: string) =>
  local.service.ctx.db.prepare('SELECT remote_uuid FROM sync_id_map WHERE local_uuid = ?').pluck().get(uuid) as string | undefined;

/**
 * Uploads a text file to a record of the synthetic dataset on `client`'s side. Done here, the
 * bytes are stored here, so the record takes the merge path of a pull from then on.
 */
export const storeFile = (client: OdrClient, rec: string, name: string, text = `bytes of ${name}`) =>
  client.uploadFile(
    { dataset_uuid: SYNTH.dataset, record_uuid: rec, field_uuid: SYNTH.field('File') },
    { blob: new Blob([text], { type: 'text/plain' }), name },
  );

/** Sets a synthetic record's public date on `client`'s side (here or the remote). */
export const setPublicDate = (client: OdrClient, rec: string, public_date: string) =>
  client.setPublic({ user_email: ADMIN.email, dataset_uuid: SYNTH.dataset, record_uuid: rec, public_date });

/** One sync run of the synthetic dataset as the local super-user; an error fails the test. */
export async function syncRun(local: TestService, remoteId: number) {
  const s = await local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
  expect(s.error).toBeUndefined();
  return s;
}

/** A pull of the synthetic dataset alone, with no push before it. */
export const pullOnly = (local: TestService, remoteId: number) =>
  local.service.sync.engine(remoteId, local.service.domain.users.firstSuperUser()!).pull(SYNTH.dataset);

/** One push alone, with no pull after it; resolves with its failure (null: none), so a test can cut it. */
export const pushOnly = (local: TestService, remoteId: number): Promise<Error | null> =>
  local.service.sync
    .engine(remoteId, local.service.domain.users.firstSuperUser()!)
    .push()
    .then(
      () => null,
      (e: unknown) => e as Error,
    );

/** A sync run whose first request matching `match` the gate answers with `refusal` (the server refusing it). */
export async function refusedRun(
  p: { local: TestService; remoteId: number; gate: Awaited<ReturnType<typeof gateProxy>> },
  match: (method: string, path: string) => boolean,
  refusal: Refusal = { status: 403, message: 'refused by the test' },
) {
  const held = p.gate.hold(match);
  const pass = syncRun(p.local, p.remoteId);
  await held.reached;
  held.release(refusal);
  return pass;
}

/** The operations of a record listed under "needs attention" here. */
export const parkedOf = (local: TestService, rec: string) =>
  local.service.sync.status().needsAttention.filter((o) => o.record_uuid === rec);

/** The file field `withChildFile` adds to the synthetic child datatype. */
export const CHILD_FILE = SYNTH.childField(4);

/** The synthetic template with a file field on the child datatype too. */
export function withChildFile(): unknown {
  const tpl = syntheticTemplate() as { related_databases: { fields: Record<string, unknown>[] }[] };
  tpl.related_databases[0]!.fields.push({
    internal_id: 9104,
    name: 'Attachment',
    description: '',
    fieldtype: 'File',
    field_uuid: CHILD_FILE,
    template_field_uuid: null,
    updated_at: '2025-01-01 00:00:00',
    _field_metadata: { _create_date: '2025-01-01 00:00:00', _create_auth: 'x', _public_date: '2025-01-01 00:00:00' },
  });
  return tpl;
}

/**
 * Waits up to `ms` for `done`, looking every 25 ms; whether it came. A bound on a wait for a
 * state, never a measure: a test asserts the answer, so a slow machine only waits longer.
 */
export async function within(ms: number, done: () => boolean): Promise<boolean> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
  return done();
}
