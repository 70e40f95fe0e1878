// A service process for the benchmark: serves a data dir on a loopback port and reports its
// peak RSS when told to stop.
import { createService } from '../electron/service/service.js';
import { listen } from '../electron/service/host/http.js';

const [dataDir] = process.argv.slice(2);
const service = await createService({ dataDir: dataDir!, admin: { email: 'bench@localhost', password: 'bench-password' } });
const host = await listen(service, 0);
process.send?.({ port: host.port });
process.on('message', async (m: { cmd: string }) => {
  if (m.cmd === 'stop') {
    process.send?.({ maxRssMb: process.resourceUsage().maxRSS / 1024 });
    await host.close();
    await service.close();
    process.exit(0);
  }
});
