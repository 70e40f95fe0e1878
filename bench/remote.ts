// What the files and sync sections share: a seeded data dir served by a bench server in its own
// process (the "remote" of a sync, or the service under test), and the bare clients that measure
// the limit a figure is compared with in the same run.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createService } from '../electron/service/service.js';
import { importFile } from '../electron/service/domain/import/importFile.js';
import { OdrClient } from '../shared/client/odrClient.js';
import { SYNTH, syntheticTemplate, writeSyntheticExport } from './synthetic.js';
import { forkTs, freshDir, type BenchContext, type Child } from './util.js';

/** The super-user every bench server starts with (bench/server.ts). */
export const BENCH_ADMIN = { email: 'bench@localhost', password: 'bench-password' };

/** A fresh data dir `name` holding the synthetic template and `records` of its records. */
export async function seedDataDir(ctx: BenchContext, name: string, records: number): Promise<{ dir: string; children: number }> {
  const dir = freshDir(ctx, name);
  const setup = await createService({ dataDir: dir, admin: BENCH_ADMIN });
  try {
    const admin = setup.domain.users.firstSuperUser()!;
    const tpl = path.join(ctx.work, 'synthetic-template.json');
    writeFileSync(tpl, JSON.stringify(syntheticTemplate()));
    await importFile(setup.domain, admin, tpl);
    const recs = path.join(ctx.work, `synthetic-${records}.json`);
    await writeSyntheticExport(recs, records);
    await importFile(setup.domain, admin, recs);
    const children = setup.ctx.db.prepare('SELECT COUNT(*) FROM records WHERE parent_rid IS NOT NULL').pluck().get() as number;
    return { dir, children };
  } finally {
    await setup.close();
  }
}

export interface Remote {
  child: Child;
  /** …/api/v4 on its loopback port. */
  api: string;
  /** Records below the top level in its data (the synthetic export's child records). */
  children: number;
  /** A client logged in as BENCH_ADMIN. */
  client: () => Promise<OdrClient>;
}

/** A seeded data dir (`seedDataDir`) served by bench/server.ts in its own process. */
export async function startRemote(ctx: BenchContext, name: string, records: number): Promise<Remote> {
  const { dir, children } = await seedDataDir(ctx, name, records);
  const child = await forkTs('server.ts', [dir]);
  const api = `http://127.0.0.1:${child.port}/api/v4`;
  return {
    child,
    api,
    children,
    client: async () => {
      const c = new OdrClient({ baseUrl: api });
      await c.login(BENCH_ADMIN.email, BENCH_ADMIN.password);
      return c;
    },
  };
}

/** Reads a response body to its end without keeping it; its length in bytes. */
export async function drain(res: Response): Promise<number> {
  let n = 0;
  for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) n += part.length;
  return n;
}

/**
 * The limit for downloads: a bare GET of `url` (with the client's token); bytes read. `drain`
 * reads the body off the socket and drops it; `buffer` holds it in memory as a client that keeps
 * what it fetched must (the file pull's limit has always been measured that way; in this
 * machine's runs a drain read 173–182 MB/s where that read 119).
 */
export async function bareGet(url: string, token?: string, body: 'drain' | 'buffer' = 'drain'): Promise<number> {
  const res = await fetch(url, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
  if (!res.ok) throw new Error(`bare GET ${url} answered ${res.status}`);
  return body === 'drain' ? drain(res) : (await res.arrayBuffer()).byteLength;
}

/**
 * The limit for a first pull: a bare client GETting the synthetic dataset's record pages one
 * after the other, JSON parse only; records read and milliseconds taken.
 */
export async function barePages(client: OdrClient, pageSize = 100): Promise<{ records: number; ms: number }> {
  const t0 = performance.now();
  let records = 0;
  for (let offset = 0; ; offset += pageSize) {
    const page = await client.request<{ records: unknown[] }>('GET', `/dataset/${SYNTH.dataset}/${pageSize}/${offset}`);
    records += page.records.length;
    if (page.records.length < pageSize) break;
  }
  return { records, ms: performance.now() - t0 };
}
