import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { OdrClient } from '../../shared/client/odrClient.js';
import { createService, type Service, type ServiceOptions } from '../../electron/service/service.js';
import { listen, type HttpHost } from '../../electron/service/host/http.js';
import { importFile } from '../../electron/service/domain/import/importFile.js';
import { syntheticTemplate, writeSyntheticExport } from '../../bench/synthetic.js';

export const ADMIN = { email: 'admin@test.local', password: 'admin-password-1' };
export const USER = { email: 'user@test.local', password: 'user-password-1' };

export interface TestService {
  service: Service;
  host: HttpHost;
  dataDir: string;
  /** …/api/v4 on the real socket */
  api: string;
  admin: OdrClient;
  /** Closes the host, then the service; answers the service's close (did every job end in time). */
  close: () => Promise<Awaited<ReturnType<Service['close']>>>;
  client: (token?: string) => OdrClient;
  loginAs: (email: string, password: string) => Promise<OdrClient>;
  importJson: (json: unknown) => Promise<void>;
  /** A digest of every table: equal before and after = nothing changed. */
  digest: () => string;
}

export function tempDir(prefix = 'odr-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A real service: SQLite file in a temp dir, HTTP on a loopback port. */
export async function startService(opts: Partial<ServiceOptions> & { dataDir?: string; keepDir?: boolean } = {}): Promise<TestService> {
  const dataDir = opts.dataDir ?? tempDir();
  const service = await createService({ admin: ADMIN, ...opts, dataDir });
  const host = await listen(service, 0);
  const api = `${host.url}/api/v4`;
  const client = (token?: string) => new OdrClient({ baseUrl: api, token, strict: true });
  const admin = client();
  await admin.login(ADMIN.email, ADMIN.password);
  return {
    service,
    host,
    dataDir,
    api,
    admin,
    client,
    loginAs: async (email, password) => {
      const c = client();
      await c.login(email, password);
      return c;
    },
    importJson: async (json) => {
      const file = path.join(dataDir, `import-${Date.now()}-${Math.random()}.json`);
      writeFileSync(file, JSON.stringify(json));
      await importFile(service.domain, service.domain.users.firstSuperUser()!, file);
    },
    digest: () => {
      // Every table the schema has (read from sqlite_master, so tables added later are covered
      // too), FTS shadow tables included.
      // The search index is derived and built in the background: bring it up to date first, so
      // the digest changes only when data did (a refused request must leave it as it was too).
      // Its skip list likewise (a pass is due at the first tick of a new database).
      service.domain.search.catchUp();
      service.domain.search.settleSkips();
      const h = createHash('sha256');
      const tables = service.ctx.db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .pluck()
        .all() as string[];
      for (const t of tables)
        h.update(t).update(
          JSON.stringify(service.ctx.db.prepare(`SELECT * FROM "${t}" ORDER BY 1`).raw().all(), (_k, v: unknown) =>
            typeof v === 'bigint' ? String(v) : v,
          ),
        );
      return h.digest('hex');
    },
    close: async () => {
      await host.close();
      const closed = await service.close();
      if (!opts.keepDir) rmSync(dataDir, { recursive: true, force: true });
      return closed;
    },
  };
}

/** A service holding the synthetic template and `n` synthetic records, plus a second user. */
export async function startSyntheticService(
  n = 30,
  opts: Parameters<typeof startService>[0] & { template?: unknown } = {},
): Promise<TestService> {
  const { template, ...rest } = opts;
  const t = await startService(rest);
  await t.importJson(template ?? syntheticTemplate());
  const file = path.join(t.dataDir, 'records.json');
  await writeSyntheticExport(file, n);
  await importFile(t.service.domain, t.service.domain.users.firstSuperUser()!, file);
  await t.service.domain.users.create({ email: USER.email, password: USER.password });
  return t;
}
