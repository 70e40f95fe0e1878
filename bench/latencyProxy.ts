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
const hide = process.argv[4] === 'real-odr' ? new RegExp(`\r\n${GUARDED_WRITES_HEADER}:[^\r]*`, 'gi') : null;
const HEADER_START = `\r\n${GUARDED_WRITES_HEADER}:`;
// Unanchored: a request line follows the previous request's body on the same line.
const READ = /GET \/api\/v4\/dataset\/record\/\S+ HTTP/g;
/** Record reads (GET dataset/record) sent through: the bench checks the read-first push ran. */
let recordReads = 0;

/**
 * The part at the end of `text` that may be the start of the guarded-writes header line, whose
 * rest is still to come: held back, since an answer head can arrive in two reads (after a large
 * body on a kept-alive connection), and a header split there would pass on. Held bytes go on
 * with the next read: an answer never ends in them (a head ends in a blank line, the JSON bodies
 * here in a bracket).
 */
function openHeaderTail(text: string): number {
  const at = text.lastIndexOf('\r');
  // After a line end: the blank line that ends the head (or a body's), never a header.
  if (at < 0 || text.slice(0, at).endsWith('\r\n')) return text.length;
  const rest = text.slice(at).toLowerCase();
  if (HEADER_START.startsWith(rest) || rest.startsWith(HEADER_START)) return at;
  return text.length;
}

/** `from`'s bytes reach `to` delayMs later, in order (timers of one duration fire in order). */
function pipeDelayed(from: Socket, to: Socket, dir: 'request' | 'answer'): void {
  let held = '';
  from.on('data', (data: Buffer) => {
    let chunk = data;
    // Latin-1 keeps every byte as it is, bodies included.
    if (dir === 'answer' && hide) {
      // Cut first: every header line before the cut is whole, so the value is never cut off.
      const text = held + data.toString('latin1');
      const cut = openHeaderTail(text);
      held = text.slice(cut);
      chunk = Buffer.from(text.slice(0, cut).replace(hide, ''), 'latin1');
    } else if (dir === 'request') {
      // The read's tail is kept to count a request line split between two reads, once.
      const text = held + data.toString('latin1');
      const counted = held.length;
      for (const m of text.matchAll(READ)) if (m.index + m[0].length > counted) recordReads++;
      held = text.slice(-300);
    }
    setTimeout(() => to.write(chunk), delayMs);
  });
  from.on('end', () =>
    setTimeout(() => {
      if (dir === 'answer' && held) to.write(Buffer.from(held, 'latin1'));
      to.end();
    }, delayMs),
  );
  from.on('error', () => to.destroy());
}

const server = createServer((client) => {
  client.setNoDelay(true);
  const upstream = connect({ host: '127.0.0.1', port: target });
  upstream.setNoDelay(true);
  pipeDelayed(client, upstream, 'request');
  pipeDelayed(upstream, client, 'answer');
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => setTimeout(() => client.destroy(), delayMs));
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
// {cmd:'stats'}: CPU time used so far, as bench/server.ts answers it; anything else stops it.
process.on('message', (m: { cmd: string }) => {
  if (m.cmd !== 'stats') process.exit(0);
  const cpu = process.cpuUsage();
  process.send?.({ stats: { cpuUs: cpu.user + cpu.system, recordReads } });
});
