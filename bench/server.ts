// A service process for the benchmark: serves a data dir (and the built renderer) on a loopback
// port; answers {cmd:'stats'} with its peak RSS, CPU time and group-commit counters, and stops on {cmd:'stop'}.
import path from 'node:path';
import { createService } from '../electron/service/service.js';
import { listen } from '../electron/service/host/http.js';
import { serveRenderer } from '../electron/service/host/static.js';
import { BENCH_DIR } from './util.js';

const [dataDir] = process.argv.slice(2);
const service = await createService({
  dataDir: dataDir!,
  admin: { email: 'bench@localhost', password: 'bench-password' },
  static: serveRenderer(path.join(BENCH_DIR, '..', 'dist', 'renderer')),
});
const host = await listen(service, 0);
const stats = () => ({
  maxRssMb: process.resourceUsage().maxRSS / 1024,
  cpuUs: process.cpuUsage().user + process.cpuUsage().system,
  batches: service.domain.writes.batches,
  operations: service.domain.writes.operations,
  commitMs: service.domain.writes.commitMs,
});
process.send?.({ port: host.port });
process.on('message', async (m: { cmd: string }) => {
  if (m.cmd === 'stats') process.send?.({ stats: stats() });
  if (m.cmd === 'stop') {
    process.send?.(stats());
    await host.close();
    await service.close();
    process.exit(0);
  }
});
