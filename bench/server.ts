// A service process for the benchmark: serves a data dir (and the built renderer) on a loopback
// port; answers {cmd:'stats'} with its peak RSS, CPU time and group-commit counters, and stops on {cmd:'stop'}.
import { readFileSync } from 'node:fs';
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
/**
 * This process's peak RSS. Linux's getrusage maxrss (process.resourceUsage) starts a forked child
 * at its parent's RSS when it forks, so a service forked by a bench process holding 1 GB of
 * imports reported 1 GB; VmHWM is the peak of this process's own memory since its exec.
 */
function peakRssMb(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]) / 1024;
  } catch {
    // Not Linux: maxrss is the figure there.
  }
  return process.resourceUsage().maxRSS / 1024;
}
/**
 * Where the resident memory was at the highest sample (every 250 ms): VmHWM alone does not say
 * what to cut. Anon minus V8's heap and the external buffers is mostly SQLite's page cache and
 * malloc's; file is the mapped code.
 */
let peak = { rss: 0, parts: '' };
const mb = (b: number) => Math.round(b / 2 ** 20);
setInterval(() => {
  let status = '';
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    return; // not Linux
  }
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  const rss = kb('VmRSS');
  if (rss <= peak.rss) return;
  const m = process.memoryUsage();
  const renders = service.ctx.renders;
  peak = {
    rss,
    parts:
      `anon ${mb(kb('RssAnon'))} MB (V8 heap ${mb(m.heapTotal)}, external buffers ${mb(m.external)} of which ` +
      `${renders.size} cached renders ${mb(renders.heldBytes)}), file ${mb(kb('RssFile'))} MB`,
  };
}, 250).unref();
const stats = () => ({
  maxRssMb: peakRssMb(),
  peakParts: peak.parts,
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
