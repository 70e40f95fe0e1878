// A service process for the benchmark: serves a data dir (and the built renderer) on a loopback
// port; answers {cmd:'stats'} with its peak RSS, CPU time and group-commit counters, and stops on {cmd:'stop'}.
import path from 'node:path';
import { createService } from '../electron/service/service.js';
import { listen } from '../electron/service/host/http.js';
import { serveRenderer } from '../electron/service/host/static.js';
import { BENCH_DIR } from './util.js';

const [dataDir, mode] = process.argv.slice(2);
const service = await createService({
  dataDir: dataDir!,
  admin: { email: 'bench@localhost', password: 'bench-password' },
  // `main-thread-writes`: record edits commit on this thread, as before the write worker (for comparison).
  writeWorker: mode !== 'main-thread-writes',
  static: serveRenderer(path.join(BENCH_DIR, '..', 'dist', 'renderer')),
});
const host = await listen(service, 0);
const stats = () => ({
  maxRssMb: process.resourceUsage().maxRSS / 1024,
  cpuUs: process.cpuUsage().user + process.cpuUsage().system,
  // Route writes commit on the write worker (record field edits) or on this thread (the rest).
  batches: service.domain.writes.batches + (service.domain.writer?.counters.batches ?? 0),
  operations: service.domain.writes.operations + (service.domain.writer?.counters.operations ?? 0),
  commitMs: service.domain.writes.commitMs + (service.domain.writer?.counters.commitMs ?? 0),
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
