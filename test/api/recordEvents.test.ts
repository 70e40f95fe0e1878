import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { ADMIN, USER, startSyntheticService, type TestService } from '../support/service.js';

// GET /local/events streams `records` events ({datasetUuid, recordUuids}) to every subscriber.
// Each one must learn only what the read gate lets them read: nothing of a dataset they may not
// see, and the uuids of records they may read (all of them for who sees all of the dataset).

const DS = SYNTH.dataset;
const TEXT = SYNTH.field('Long Text');
/** Synthetic records with i % 3 === 0 are private, the others public. */
const PRIVATE = SYNTH.record(3);
const PUBLIC = SYNTH.record(4);
const MARK = SYNTH.record(5);

interface RecordsEvent {
  datasetUuid: string;
  recordUuids: string[];
}

let t: TestService;
const tokens: Record<string, string> = {};

async function login(email: string, password: string) {
  const r = await fetch(`${t.api}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: email, password }),
  });
  return ((await r.json()) as { token: string }).token;
}

beforeAll(async () => {
  t = await startSyntheticService(6);
  await t.service.domain.users.create({ email: 'viewer@test.local', password: 'viewer-password-1' });
  tokens.user = await login(USER.email, USER.password);
  tokens.viewer = await login('viewer@test.local', 'viewer-password-1');
  tokens.admin = await login(ADMIN.email, ADMIN.password);
  const granted = await t.admin.send('POST', '/user/permissions', {
    form: { user_email: 'viewer@test.local', dataset_uuid: DS, permission: 'view_all' },
  });
  expect(granted.status).toBe(200);
});
afterAll(() => t.close());

/** An open event stream: the `records` events it has received so far. */
async function subscribe(token: string) {
  const ctrl = new AbortController();
  const res = await fetch(`${t.host.url}/local/events?access_token=${token}`, { signal: ctrl.signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: RecordsEvent[] = [];
  let buf = '';
  let ready = false;
  /** Reads until `done()` holds (bounded: 15 s). */
  const until = async (done: () => boolean) => {
    const deadline = Date.now() + 15_000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out; events so far: ${JSON.stringify(events)}`);
      const { value, done: ended } = await reader.read();
      if (ended) throw new Error('the event stream ended');
      buf += value;
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event === 'ready') ready = true;
        if (event === 'records' && data) events.push(JSON.parse(data) as RecordsEvent);
      }
    }
  };
  await until(() => ready);
  return { events, until, close: () => ctrl.abort() };
}

const setValue = (rec: string, value: string) => t.admin.send('POST', `/record/${rec}/${TEXT}/value`, { json: { value } });

describe('the event stream tells each user only what they may read', () => {
  it('records of a dataset the user sees: private ones unnamed unless they see all; other datasets not at all', async () => {
    // A non-public dataset made from the same template: neither subscriber may see it.
    const made = await t.admin.send('POST', '/dataset', { form: { template_uuid: DS, dataset_name: 'Hidden', user_email: ADMIN.email } });
    expect(made.status).toBeLessThan(400);
    const hidden = t.service.domain
      .schema()
      .topLevel()
      .find((dt) => dt.name === 'Hidden')!.uuid;

    const user = await subscribe(tokens.user!);
    const viewer = await subscribe(tokens.viewer!);
    const admin = await subscribe(tokens.admin!);
    try {
      expect((await setValue(PRIVATE, 'private change')).status).toBe(200);
      expect((await setValue(PUBLIC, 'public change')).status).toBe(200);
      const inHidden = await t.admin.send('POST', `/dataset/${hidden}/record`, { form: {} });
      expect(inHidden.status).toBe(200);
      const hiddenRec = ((await inHidden.json()) as { record_uuid: string }).record_uuid;
      const batch = await fetch(`${t.host.url}/local/datasets/${DS}/batch`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ records: [PRIVATE, PUBLIC], change: { kind: 'value', field: TEXT, value: 'batch' } }),
      });
      expect(batch.status).toBe(200);
      // Deleted: a private record is not named to who could not read it.
      expect((await t.admin.send('DELETE', `/record/${PRIVATE}`)).status).toBe(200);
      // The last change every subscriber may read: once it arrives, every earlier event has.
      expect((await setValue(MARK, 'mark')).status).toBe(200);
      const marked = (s: { events: RecordsEvent[] }) => () => s.events.some((e) => e.recordUuids.includes(MARK));
      await Promise.all([user.until(marked(user)), viewer.until(marked(viewer)), admin.until(marked(admin))]);

      expect(user.events).toEqual([
        { datasetUuid: DS, recordUuids: [] },
        { datasetUuid: DS, recordUuids: [PUBLIC] },
        { datasetUuid: DS, recordUuids: [PUBLIC] },
        { datasetUuid: DS, recordUuids: [] },
        { datasetUuid: DS, recordUuids: [MARK] },
      ]);
      const all = [
        { datasetUuid: DS, recordUuids: [PRIVATE] },
        { datasetUuid: DS, recordUuids: [PUBLIC] },
        { datasetUuid: DS, recordUuids: [PRIVATE, PUBLIC] },
        { datasetUuid: DS, recordUuids: [PRIVATE] },
        { datasetUuid: DS, recordUuids: [MARK] },
      ];
      expect(viewer.events).toEqual(all);
      expect(admin.events).toEqual([...all.slice(0, 2), { datasetUuid: hidden, recordUuids: [hiddenRec] }, ...all.slice(2)]);
    } finally {
      user.close();
      viewer.close();
      admin.close();
    }
  });

  it('a role revoked while the stream is open counts from the next event', async () => {
    const viewer = await subscribe(tokens.viewer!);
    try {
      const revoked = await t.admin.send('POST', '/user/permissions', {
        form: { user_email: 'viewer@test.local', dataset_uuid: DS, permission: 'none' },
      });
      expect(revoked.status).toBe(200);
      const hiddenNow = SYNTH.record(0);
      expect((await setValue(hiddenNow, 'after the revoke')).status).toBe(200);
      expect((await setValue(MARK, 'mark again')).status).toBe(200);
      await viewer.until(() => viewer.events.some((e) => e.recordUuids.includes(MARK)));
      expect(viewer.events).toEqual([
        { datasetUuid: DS, recordUuids: [] },
        { datasetUuid: DS, recordUuids: [MARK] },
      ]);
    } finally {
      viewer.close();
    }
  });
});
