import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { RightLost } from '../../electron/service/domain/errors.js';
import type { OdrClient } from '../../shared/client/odrClient.js';
import { rest, started as startedRead } from '../support/pausedRead.js';
import { ADMIN, startSyntheticService, USER, type TestService } from '../support/service.js';

// A streamed list (api/routes/recordStream.ts) renders each chunk of 200 records when the client
// takes the ones before, possibly long after the request: every chunk is judged by the read rule
// as things stand when it is read. A client reads the first bytes and stops (its socket buffers
// fill: 2,000-3,000 records are 12-19 MB), a write takes a right away, then the client reads the
// rest: nothing it may no longer read arrives, and the count is what arrived. Without the check
// per chunk, every one of these writes showed up in the rest of the answer. Id lists are read a
// step at a time the same way (RecordLists.ids).

const N = 3000;
const FUTURE = '2200-01-01 00:00:00';
const ID_STEP = 250;
let t: TestService;
let user: OdrClient;
beforeAll(async () => {
  // Id lists step by 250 entries here (5,000 by default), so that these 3,000 records take 12 steps.
  t = await startSyntheticService(N, { config: { idListChunk: ID_STEP } });
  user = await t.loginAs(USER.email, USER.password);
}, 120_000);
afterAll(() => t.close());

const started = (method: string, path: string, body?: string) => startedRead(t.api, user.token!, method, path, body);

interface Answer {
  count?: number;
  records: { record_uuid: string }[];
}

/** The rest of the answer, parsed with its head. */
async function finished({ res, head }: { res: IncomingMessage; head: Buffer }): Promise<{ count?: number; uuids: string[] }> {
  const body = JSON.parse(Buffer.concat([head, await rest(res)]).toString('utf8')) as Answer;
  return { count: body.count, uuids: body.records.map((r) => r.record_uuid) };
}

const idsAs = async (c: OdrClient) => (await c.recordIds(SYNTH.dataset)).records.map((r) => r.unique_id);

const role = (permission: string) =>
  t.admin.request('POST', '/user/permissions', { form: { user_email: USER.email, dataset_uuid: SYNTH.dataset, permission } });

it(`id lists stream ${ID_STEP} entries a step: the same list as the records', for any limit and offset`, async () => {
  const page = (await user.list(SYNTH.dataset, 10_000, 0)).records.map((r) => r.record_uuid);
  expect(page.length).toBe(N - N / 3);
  const ids = async (limit: number, offset: number) => (await user.recordIds(SYNTH.dataset, limit, offset)).records.map((r) => r.unique_id);
  expect(await ids(0, 0)).toEqual(page);
  for (const [limit, offset] of [
    [ID_STEP, 0],
    [ID_STEP + 1, 3],
    [1234, 500],
    [0, 1999],
    [0, 2000],
    [5, 1998],
  ] as const)
    expect(await ids(limit, offset), `limit ${limit} offset ${offset}`).toEqual(page.slice(offset, limit ? offset + limit : undefined));
  // Longer than a step: streamed (no length known up front); a step or less: one buffer.
  const head = async (limit: number) => {
    const res = await user.send('GET', `/search/database/${SYNTH.dataset}/records/${limit}/0`);
    await res.text();
    return res.headers;
  };
  expect((await head(0)).get('content-length')).toBeNull();
  expect((await head(ID_STEP - 1)).get('content-length')).not.toBeNull();
  const names = (await user.recordIds(SYNTH.dataset)).records;
  expect(names[0]).toMatchObject({ unique_id: page[0], external_id: '', record_name: 'S-000001' }); // record 0 is not public
});

it('an id list read a step at a time reads each step with the rights as they are then', async () => {
  const d = t.service.domain;
  const viewer = d.users.findByEmail(USER.email)!;
  const visible = await idsAs(user);
  const [hidden, gone] = [visible[ID_STEP * 2]!, visible.at(-1)!];
  const next = d.lists.ids(viewer, d.datatype(SYNTH.dataset), 0, 0, null);
  const got = next().map((e) => e.unique_id);
  expect(got).toEqual(visible.slice(0, ID_STEP));
  await t.admin.setPublic({ user_email: ADMIN.email, dataset_uuid: SYNTH.dataset, record_uuid: hidden, public_date: FUTURE });
  await t.admin.deleteRecords([gone]);
  for (let i = 0; i < N; i++) {
    const step = next();
    if (!step.length) break;
    got.push(...step.map((e) => e.unique_id));
  }
  expect(got).toEqual(visible.filter((u) => u !== hidden && u !== gone));
  // Put back for the tests below: the hidden record public again.
  await t.admin.setPublic({
    user_email: ADMIN.email,
    dataset_uuid: SYNTH.dataset,
    record_uuid: hidden,
    public_date: '2025-01-01 00:00:00',
  });
});

it('a record made non-public, and one deleted, while a page streams are left out of its rest and its count', async () => {
  const visible = await idsAs(user);
  expect(visible.length).toBe(N - N / 3 - 1); // one synthetic record in three is not public; one was deleted above
  const [gone, hidden] = visible.slice(-2) as [string, string];
  const stream = await started('GET', `/dataset/${SYNTH.dataset}/10000/0`);
  await t.admin.setPublic({ user_email: ADMIN.email, dataset_uuid: SYNTH.dataset, record_uuid: hidden, public_date: FUTURE });
  await t.admin.deleteRecords([gone]);
  const { count, uuids } = await finished(stream);
  expect(uuids).not.toContain(hidden);
  expect(uuids).not.toContain(gone);
  expect(uuids).toEqual(visible.slice(0, -2));
  expect(count).toBe(uuids.length);
}, 60_000);

it("the viewer's role revoked while a search streams: the rest holds only what they may still read", async () => {
  await role('view');
  const all = await idsAs(user);
  expect(all.length).toBe(N - 2);
  const stream = await started('POST', `/dataset/${SYNTH.dataset}/search/0/0`, '{"fields":[]}');
  await role('none');
  const still = new Set(await idsAs(user));
  const { uuids } = await finished(stream);
  // What was rendered before the revocation, then from where it took effect only what is public.
  const k = all.findIndex((u, i) => uuids[i] !== u);
  expect(k).toBeGreaterThanOrEqual(0);
  expect(k).toBeLessThan(all.length - 400);
  expect(uuids).toEqual([...all.slice(0, k), ...all.slice(k).filter((u) => still.has(u))]);
  expect(uuids).not.toContain(all.filter((u) => !still.has(u)).at(-1));
}, 60_000);

// Last: it hides the dataset.
it('the dataset made non-public while a page streams: nothing more of it is sent', async () => {
  const visible = await idsAs(user);
  const stream = await started('GET', `/dataset/${SYNTH.dataset}/10000/0`);
  const published = await t.admin.send('POST', '/dataset/publish', { form: { dataset_uuid: SYNTH.dataset, public_date: FUTURE } });
  expect(published.ok).toBe(true); // its 302, followed
  await expect(user.recordIds(SYNTH.dataset)).rejects.toMatchObject({ status: 403 });
  const { count, uuids } = await finished(stream);
  expect(uuids.length).toBeLessThan(visible.length - 400);
  expect(uuids).toEqual(visible.slice(0, uuids.length));
  expect(count).toBe(uuids.length);
}, 60_000);

// After the dataset was hidden above. An id list's steps read the dataset again: one hidden or
// deleted between steps errors the answer; a well-formed shorter list would read, to a syncing
// peer, as the rest of the records removed.
it('an id list whose dataset is hidden from the viewer between steps throws in the step, not the natural end', async () => {
  const d = t.service.domain;
  await t.admin.send('POST', '/dataset/publish', { form: { dataset_uuid: SYNTH.dataset, public_date: '2020-01-01 00:00:00' } });
  const viewer = d.users.findByEmail(USER.email)!;
  const step = d.lists.ids(viewer, d.datatype(SYNTH.dataset), 0, 0, null);
  expect(step()).toHaveLength(ID_STEP);
  await t.admin.send('POST', '/dataset/publish', { form: { dataset_uuid: SYNTH.dataset, public_date: FUTURE } });
  expect(() => step()).toThrow(RightLost);
  expect(() => step()).toThrow(/hidden from you while its ids were listed/);
});
