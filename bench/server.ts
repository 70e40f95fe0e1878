// A service process for the benchmark: serves a data dir (and the built renderer) on a loopback
// port and reports its peak RSS when told to stop.
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
process.send?.({ port: host.port });
process.on('message', async (m: { cmd: string }) => {
  if (m.cmd === 'stop') {
    process.send?.({
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      batches: service.domain.writes.batches,
      operations: service.domain.writes.operations,
    });
    await host.close();
    await service.close();
    process.exit(0);
  }
});
