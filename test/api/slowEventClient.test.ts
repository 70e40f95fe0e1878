import { once } from 'node:events';
import http from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { deleteRecords } from '../../electron/service/domain/records/ops.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// GET /local/events queues each subscriber's events until they are written. A client that stops
// reading (here: a node:http response paused, so the socket fills and the service's writes wait)
// must not make the service keep every event: past its bound the queue becomes one `resync`
// event, which the client reads when it resumes and answers by refetching. Without the bound
// the 60 MB of events below stayed in the service's heap.

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

const N = 30;
const EVENTS = 10_000;
let t: TestService;
beforeAll(async () => {
  t = await startSyntheticService(N);
}, 60_000);
afterAll(() => t.close());

const d = () => t.service.domain;
const ids = async () =>
  (await t.admin.request<{ records: { unique_id: string }[] }>('GET', `/search/database/${SYNTH.dataset}/records/0/0`)).records.map(
    (r) => r.unique_id,
  );

/** A raw SSE client: its events in order, how many bytes it read, and pause/resume of its reading. */
async function subscribe() {
  const events: { event: string; data: string }[] = [];
  let bytes = 0;
  let buf = '';
  const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http.get(`${t.host.url}/local/events?access_token=${t.admin.token!}`, resolve).on('error', reject),
  );
  expect(res.statusCode).toBe(200);
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    bytes += Buffer.byteLength(chunk);
    buf += chunk;
    for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      if (event) events.push({ event, data: /^data: (.*)$/m.exec(block)?.[1] ?? '' });
    }
  });
  /** Reads until `done()` holds (bounded: 20 s). */
  const until = async (done: () => boolean, what: string) => {
    const signal = AbortSignal.timeout(20_000);
    while (!done()) {
      await once(res, 'data', { signal }).catch(() => {
        throw new Error(`timed out waiting for ${what}; ${events.length} events, ${bytes} bytes read`);
      });
    }
  };
  await until(() => events.some((e) => e.event === 'ready'), 'ready');
  return { events, res, until, bytes: () => bytes };
}

it('a client that stops reading costs a bounded queue, then gets a resync, refetches and is live again', async () => {
  const sub = await subscribe();
  sub.res.pause();
  const before = heap();
  // 10,000 events of ~6 KB JSON each (60 MB), produced while the client reads nothing.
  const uuids = Array.from({ length: 200 }, (_, i) => SYNTH.record(10 + (i % (N - 10))));
  for (let k = 0; k < EVENTS; k++) {
    d().ctx.events.emit('records', { datasetUuid: SYNTH.dataset, recordUuids: uuids });
    if (k % 200 === 199) await nextTurn();
  }
  // A real change the client does not hear about while it is behind.
  const gone = SYNTH.record(1);
  deleteRecords(d(), d().users.firstSuperUser()!, [gone]);
  await nextTurn();
  const grown = heap() - before;
  expect(grown, `heap grew by ${(grown / 1e6).toFixed(1)} MB while 60 MB of events were produced`).toBeLessThan(16e6);

  sub.res.resume();
  await sub.until(() => sub.events.some((e) => e.event === 'resync'), 'the resync event');
  const resync = sub.events.findIndex((e) => e.event === 'resync');
  const dropped = (JSON.parse(sub.events[resync]!.data) as { dropped: number }).dropped;
  // Everything the client missed is in the resync's count, and what it read before it is bounded.
  expect(resync - 1 + dropped).toBe(EVENTS + 1);
  expect(sub.bytes()).toBeLessThan(30e6);
  expect(sub.events.some((e) => e.event === 'records' && e.data.includes(gone))).toBe(false);
  // The refetch the resync asks for shows the change.
  expect(await ids()).not.toContain(gone);

  // Live again: the next change arrives as an event.
  const next = SYNTH.record(2);
  deleteRecords(d(), d().users.firstSuperUser()!, [next]);
  await sub.until(() => sub.events.slice(resync).some((e) => e.event === 'records' && e.data.includes(next)), 'the next change');
  console.log(
    `heap grew ${(grown / 1e6).toFixed(1)} MB; read ${(sub.bytes() / 1e6).toFixed(1)} MB, ${resync - 1} records events before the resync, ${dropped} dropped`,
  );
  sub.res.destroy();
}, 60_000);
