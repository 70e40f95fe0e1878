// The limit for downloads: a bare node:http server streaming one file from disk.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const file = process.argv[2]!;
const size = statSync(file).size;
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
  createReadStream(file, { highWaterMark: 256 * 1024 }).pipe(res);
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('message', () => process.exit(0));
