// A TCP proxy on loopback that holds every chunk `delayMs` before passing it on, each way (argv:
// target port, delay in ms, and `real-odr`): a lab server's round trip (its PHP answer time, a
// campus network) in front of a loopback service, for the push figures that overlap waiting with
// work. With `real-odr` the answers lose the header saying that writes are guarded, which a real
// ODR server never sends: the push then reads each record first, as it must there.
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { GUARDED_WRITES_HEADER } from '../shared/client/odrClient.js';

const target = Number(process.argv[2]);
const delayMs = Number(process.argv[3] ?? 20);
// node:http writes an answer's head in one chunk, so the header is never split between two.
const hide = process.argv[4] === 'real-odr' ? new RegExp(`\r\n${GUARDED_WRITES_HEADER}:[^\r]*`, 'gi') : null;

/** `from`'s bytes reach `to` delayMs later, in order (timers of one duration fire in order). */
function pipeDelayed(from: Socket, to: Socket, strip = false): void {
  from.on('data', (data: Buffer) => {
    // Latin-1 keeps every byte as it is, bodies included.
    const chunk = strip && hide ? Buffer.from(data.toString('latin1').replace(hide, ''), 'latin1') : data;
    setTimeout(() => to.write(chunk), delayMs);
  });
  from.on('end', () => setTimeout(() => to.end(), delayMs));
  from.on('error', () => to.destroy());
}

const server = createServer((client) => {
  client.setNoDelay(true);
  const upstream = connect({ host: '127.0.0.1', port: target });
  upstream.setNoDelay(true);
  pipeDelayed(client, upstream);
  pipeDelayed(upstream, client, true);
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => setTimeout(() => client.destroy(), delayMs));
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
// {cmd:'stats'}: CPU time used so far, as bench/server.ts answers it; anything else stops it.
process.on('message', (m: { cmd: string }) => {
  if (m.cmd !== 'stats') process.exit(0);
  const cpu = process.cpuUsage();
  process.send?.({ stats: { cpuUs: cpu.user + cpu.system } });
});
