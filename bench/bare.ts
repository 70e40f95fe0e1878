// The limit for HTTP reads: a bare node:http server answering every request with the same bytes
// and the same headers our service sends with them (argv: body, headers as JSON).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const body = Buffer.from(process.argv[2] ?? '{}');
const headers: Record<string, string | number> = { ...JSON.parse(process.argv[3] ?? '{}'), 'content-length': body.length };
const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
// {cmd:'stats'}: CPU time used so far (user + system, µs), as bench/server.ts answers it.
process.on('message', (m: { cmd: string }) => {
  if (m.cmd !== 'stats') process.exit(0);
  const cpu = process.cpuUsage();
  process.send?.({ stats: { cpuUs: cpu.user + cpu.system } });
});
