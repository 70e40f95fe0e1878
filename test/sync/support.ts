import { rmSync } from 'node:fs';
import { OdrClient } from '../../shared/client/odrClient.js';
import { runCli, type Proc } from '../support/processes.js';
import { ADMIN, startService, startSyntheticService, type TestService } from '../support/service.js';

/** The sync remote: a second service in its own process, seeded with `n` synthetic records. */
export interface RemoteProc {
  url: string;
  proc: Proc;
  client: OdrClient;
  dataDir: string;
  stop: () => Promise<void>;
  restart: () => Promise<void>;
}

export async function startRemote(n: number): Promise<RemoteProc> {
  const seeded = await startSyntheticService(n, { keepDir: true });
  await seeded.close();
  const r: RemoteProc = { url: '', proc: undefined as unknown as Proc, client: undefined as unknown as OdrClient, dataDir: seeded.dataDir, stop: async () => {}, restart: async () => {} };
  const launch = async () => {
    r.proc = runCli(['serve', '--port', '0', '--data', seeded.dataDir, '--no-auto-login']);
    r.url = (await r.proc.waitFor(/listening on (http:\/\/\S+)/))[1]!;
    r.client = new OdrClient({ baseUrl: r.url });
    await r.client.login(ADMIN.email, ADMIN.password);
  };
  await launch();
  r.stop = async () => {
    r.proc.child.kill('SIGTERM');
    await r.proc.exited;
    rmSync(seeded.dataDir, { recursive: true, force: true });
  };
  return r;
}

/** The local side: an empty service (real SQLite file) that will pull from the remote. */
export const startLocal = (): Promise<TestService> => startService({ config: { tokenTtlSeconds: 86400 } });
