// The limit for durable writes over HTTP: a bare node:http server in front of one SQLite file
// (WAL, synchronous=FULL, as the service runs it) that stores each POSTed value with one UPDATE
// and commits all the requests that arrived since the last commit in one transaction (group
// commit), then answers each with the same bytes the service answered. Nothing else: no auth,
// routing, checks, change log, search index or render. What 8 clients gain over 1 here is what
// this machine's disk and cores allow any server; argv: database file, answer bytes, rows.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';

const [file, answer, rowsArg] = process.argv.slice(2);
const body = Buffer.from(answer ?? '{}');
const rows = Number(rowsArg ?? 10_000);
const db = new Database(file!);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec('CREATE TABLE IF NOT EXISTS v (rid INTEGER PRIMARY KEY, value TEXT)');
const insert = db.prepare('INSERT OR REPLACE INTO v VALUES (?, ?)');
db.transaction(() => {
  for (let i = 0; i < rows; i++) insert.run(i, 'a value as long as a short text field holds');
})();
const update = db.prepare('UPDATE v SET value = ? WHERE rid = ?');
const commit = db.transaction((batch: Pending[]) => {
  for (const p of batch) update.run(p.value, p.rid);
});

type Pending = { rid: number; value: string; res: import('node:http').ServerResponse };
let pending: Pending[] = [];
const flush = () => {
  const batch = pending;
  pending = [];
  commit(batch);
  for (const p of batch) {
    p.res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    p.res.end(body);
  }
};
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const { value } = JSON.parse(Buffer.concat(chunks).toString()) as { value: string };
    // The record segment's digits pick the row (/api/v4/record/{record}/{field}/value), so the
    // writes spread over the rows as the service's spread over its records.
    const parts = (req.url ?? '').split('/');
    const record = parts[parts.indexOf('record') + 1] ?? '';
    const rid = Number.parseInt(record.replace(/\D/g, '').slice(-9) || '0', 10) % rows;
    if (pending.push({ rid, value, res }) === 1) setImmediate(flush);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
// {cmd:'stats'}: CPU time used so far (user + system, µs), as bench/server.ts answers it.
process.on('message', (m: { cmd: string }) => {
  if (m.cmd !== 'stats') {
    db.close();
    process.exit(0);
  }
  const cpu = process.cpuUsage();
  process.send?.({ stats: { cpuUs: cpu.user + cpu.system } });
});
