import { afterAll, beforeAll, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { STREAM_CHUNK } from '../../electron/service/api/routes/recordStream.js';
import { rest, started as startedRead } from '../support/pausedRead.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// A list of full records with limit 0 (every match) or a huge limit is never built whole: the
// answer streams STREAM_CHUNK records at a time, each chunk rendered only once the client took
// the ones before. Proof: a client that reads the first bytes and stops, then deletes the last
// record, never receives it (an answer built whole would hold it). 3,000 records are ~19 MB,
// far more than the socket buffers between a paused client and the service.

const N = 3000;
let t: TestService;
beforeAll(async () => {
  t = await startSyntheticService(N);
}, 120_000);
afterAll(() => t.close());

const started = (method: string, path: string, body?: string) => startedRead(t.api, t.admin.token!, method, path, body);

/** The dataset's record uuids in database order. */
const allUuids = async () => (await t.admin.recordIds(SYNTH.dataset)).records.map((r) => r.unique_id);

it(`POST /dataset/{uuid}/search/0/0 streams ${STREAM_CHUNK} records at a time: a record deleted mid-answer is not in its rest`, async () => {
  const all = await allUuids();
  const last = all.at(-1)!;
  const { res, head } = await started('POST', `/dataset/${SYNTH.dataset}/search/0/0`, '{"fields":[]}');
  expect(head.toString('utf8', 0, 12)).toBe('{"records":[');
  await t.admin.deleteRecords([last]);
  const body = JSON.parse(Buffer.concat([head, await rest(res)]).toString('utf8')) as { records: { record_uuid: string }[] };
  const uuids = body.records.map((r) => r.record_uuid);
  expect(uuids.length).toBe(all.length - 1);
  expect(uuids[0]).toBe(all[0]);
  expect(uuids).not.toContain(last);
  expect(new Set(uuids).size).toBe(uuids.length);
}, 60_000);

it('GET /dataset/{uuid}/{limit}/{offset} streams its page the same way; its count, in the tail, is what arrived', async () => {
  const all = await allUuids();
  const gone = all.at(-1)!;
  const { res, head } = await started('GET', `/dataset/${SYNTH.dataset}/10000/0`);
  expect(head.toString('utf8', 0, 12)).toBe('{"records":[');
  await t.admin.deleteRecords([gone]);
  const body = JSON.parse(Buffer.concat([head, await rest(res)]).toString('utf8')) as { count: number; records: { record_uuid: string }[] };
  expect(body.records.length).toBe(all.length - 1);
  expect(body.count).toBe(body.records.length);
  expect(body.records.map((r) => r.record_uuid)).not.toContain(gone);
}, 60_000);

it('whole chunks deleted mid-answer: the answer goes on past them (a pull that sends nothing is never pulled again)', async () => {
  const all = await allUuids();
  // 500 records near the end (past what the socket buffers hold), two chunks of them whole: the
  // first empty pull may be the one the stream makes ahead of the reader, the second is the one
  // the reader waits on.
  const gone = all.slice(-600, -100);
  const { res, head } = await started('GET', `/dataset/${SYNTH.dataset}/10000/0`);
  for (let i = 0; i < gone.length; i += 100) await t.admin.deleteRecords(gone.slice(i, i + 100));
  const body = JSON.parse(Buffer.concat([head, await rest(res)]).toString('utf8')) as { count: number; records: { record_uuid: string }[] };
  const dropped = new Set(gone);
  expect(body.records.map((r) => r.record_uuid)).toEqual(all.filter((u) => !dropped.has(u)));
  expect(body.count).toBe(all.length - gone.length);
}, 60_000);

it('a record deleted mid-answer is left out, and a child saved meanwhile is not added: the rest arrives whole', async () => {
  const db = t.service.domain.ctx.db;
  const ridOf = (uuid: string) => db.prepare('SELECT rid FROM records WHERE uuid = ?').pluck().get(uuid) as number | undefined;
  // A record holding the largest rid, the last of the list.
  const last = (await t.admin.createRecord(SYNTH.dataset)).record_uuid;
  const freed = ridOf(last)!;
  expect(db.prepare('SELECT MAX(rid) FROM records').pluck().get()).toBe(freed);
  const all = await allUuids();
  expect(all.at(-1)).toBe(last);
  const { res, head } = await started('GET', `/dataset/${SYNTH.dataset}/10000/0`);
  // It is deleted, then a child saved under record 2: that takes a rid above the deleted one's.
  await t.admin.deleteRecords([last]);
  await t.admin.save({
    record_uuid: SYNTH.record(2),
    records: [
      {
        record_uuid: '',
        database_uuid: SYNTH.child,
        public_date: '2020-01-01 00:00:00',
        fields: [{ field_uuid: SYNTH.childField(1), value: 'late child' }],
      },
    ],
  } as never);
  expect(db.prepare('SELECT COUNT(*) FROM records WHERE rid = ?').pluck().get(freed)).toBe(0); // never handed out again
  expect(db.prepare('SELECT MAX(rid) FROM records').pluck().get()).toBeGreaterThan(freed); // the child's
  const body = JSON.parse(Buffer.concat([head, await rest(res)]).toString('utf8')) as { count: number; records: { record_uuid: string }[] };
  expect(body.records.map((r) => r.record_uuid)).toEqual(all.slice(0, -1));
  expect(body.count).toBe(all.length - 1);
}, 60_000);

it('a page of at most one chunk answers count first, from the records read', async () => {
  const res = await fetch(`${t.api}/dataset/${SYNTH.dataset}/5/0`, { headers: { Authorization: `Bearer ${t.admin.token!}` } });
  const text = await res.text();
  expect(text).toMatch(/^\{"count":5,"records":\[/);
  expect((JSON.parse(text) as { records: unknown[] }).records.length).toBe(5);
});

// Last: it closes the service. A list still streaming is cut, so its client sees a broken
// answer (the connection aborted), never a well-formed JSON list that is silently short.
it('closing the service mid-answer breaks the response instead of ending it as valid, truncated JSON', async () => {
  const { res, head } = await started('POST', `/dataset/${SYNTH.dataset}/search/0/0`, '{"fields":[]}');
  expect(t.service.ctx.streams.size).toBe(1);
  await t.service.close();
  expect(t.service.ctx.streams.size).toBe(0);
  const outcome = await rest(res).then(
    (b) => Buffer.concat([head, b]).toString('utf8'),
    (e: unknown) => e,
  );
  // Either the read rejects (aborted) or what arrived is not a whole JSON document.
  if (typeof outcome === 'string') expect(() => JSON.parse(outcome)).toThrow();
  else expect(outcome).toBeInstanceOf(Error);
}, 60_000);
