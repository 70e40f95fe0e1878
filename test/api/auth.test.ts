import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OdrApiError, type OdrClient } from '../../shared/client/odrClient.js';
import { ErrorBody } from '../../shared/schemas/common.js';
import { SYNTH } from '../../bench/synthetic.js';
import { ADMIN, USER, startService, startSyntheticService, type TestService } from '../support/service.js';

const R = SYNTH.record(1);
const TEXT = SYNTH.field('Long Text');
const RADIO = SYNTH.field('Single Radio');
const OPT = SYNTH.option('Single Radio', 1);

// Every authenticated route of the interface, with a body where the route needs one.
const ROUTES: [string, string, unknown?][] = [
  ['GET', `/template/${SYNTH.dataset}`],
  ['GET', `/master/${SYNTH.dataset}`],
  ['GET', `/search/template/${SYNTH.dataset}`],
  ['GET', `/search/database/${SYNTH.dataset}`],
  ['GET', '/search/databases'],
  ['GET', '/search/templates'],
  ['POST', '/dataset'],
  ['GET', `/dataset/record/${R}`],
  ['GET', `/dataset/${SYNTH.dataset}`],
  ['GET', `/dataset/${SYNTH.dataset}/10/0`],
  ['GET', `/search/database/${SYNTH.dataset}/records/0/0`],
  ['GET', `/dataset/${SYNTH.dataset}/modified/records/0/0/0`],
  ['POST', `/dataset/${SYNTH.dataset}/record`],
  ['POST', '/dataset/record', { record_uuid: R }],
  ['PUT', '/dataset', { record_uuid: R }],
  ['POST', '/dataset/record/public'],
  ['POST', `/record/${R}/${TEXT}/value`, { value: 'x' }],
  ['PUT', `/record/${R}/${RADIO}/${OPT}/selected`],
  ['DELETE', '/record', { record_uuids: [R] }],
  ['DELETE', `/record/${R}`],
  ['GET', `/dataset/quota/${SYNTH.dataset}`],
];

async function raw(t: TestService, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const res = await fetch(`${t.api}${path}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions probe arbitrary shapes
  const json: any = await res.json().catch(() => null);
  return { status: res.status, body: json, headers: res.headers };
}

describe('POST /token', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startService();
  });
  afterAll(() => t.close());

  it('answers {"token": JWT} for a good username and password', async () => {
    const r = await raw(t, 'POST', '/token', {}, { username: ADMIN.email, password: ADMIN.password });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['token']);
    const claims = JSON.parse(Buffer.from(r.body.token.split('.')[1], 'base64url').toString());
    expect(claims.username).toBe(ADMIN.email);
    expect(claims.exp - claims.iat).toBe(360_000);
  });

  it.each([
    ['wrong password', { username: ADMIN.email, password: 'nope' }, 401, 'Invalid credentials.'],
    ['unknown user', { username: 'who@x.y', password: 'nope' }, 401, 'Invalid credentials.'],
    ['missing username', { password: 'x' }, 400, 'The key "username" must be provided.'],
    ['non-string password', { username: ADMIN.email, password: 5 }, 400, 'The key "password" must be a string.'],
    ['a JSON array', [1], 400, 'Invalid JSON.'],
  ])('%s → %i', async (_, body, status, message) => {
    const r = await raw(t, 'POST', '/token', {}, body);
    expect(r.status).toBe(status);
    expect(ErrorBody.parse(r.body)).toEqual({ error: { code: status, message } });
    if (status === 401) expect(r.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('malformed JSON → 400', async () => {
    const res = await fetch(`${t.api}/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: 400, message: 'Invalid JSON.' } });
  });
});

describe('Bearer required on every route', () => {
  let t: TestService;
  let now = new Date('2026-06-01T12:00:00Z');
  beforeAll(async () => {
    t = await startSyntheticService(5, { clock: () => now, config: { tokenTtlSeconds: 3600 } });
  });
  afterAll(() => t.close());

  it.each(ROUTES)('%s %s without a token → 401 "JWT Token not found"', async (method, path, body) => {
    const before = t.digest();
    const r = await raw(t, method, path, {}, body);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: { code: 401, message: 'JWT Token not found' } });
    expect(t.digest()).toBe(before);
  });

  it.each(ROUTES)('%s %s with a forged token → 401 "Invalid JWT Token"', async (method, path, body) => {
    const [h, p] = t.admin.token!.split('.');
    const r = await raw(t, method, path, { Authorization: `Bearer ${h}.${p}.AAAA` }, body);
    expect(r.status).toBe(401);
    expect(r.body.error.message).toBe('Invalid JWT Token');
  });

  it('an expired token → 401 "Expired JWT Token"; a new login works again', async () => {
    const c = await t.loginAs(ADMIN.email, ADMIN.password);
    expect((await c.databases()).databases.length).toBe(1);
    now = new Date(now.getTime() + 3601_000);
    const r = await raw(t, 'GET', '/search/databases', { Authorization: `Bearer ${c.token}` });
    expect(r.status).toBe(401);
    expect(r.body.error.message).toBe('Expired JWT Token');
    const fresh = await t.loginAs(ADMIN.email, ADMIN.password);
    expect((await fresh.databases()).databases.length).toBe(1);
  });

  it('a malformed Authorization header → 401', async () => {
    const r = await raw(t, 'GET', '/search/databases', { Authorization: 'Basic abc' });
    expect(r.status).toBe(401);
  });
});

describe('acting for another user (user_email) and delete permission', () => {
  let t: TestService;
  let user: OdrClient;
  beforeAll(async () => {
    t = await startSyntheticService(5);
    user = await t.loginAs(USER.email, USER.password);
  });
  afterAll(() => t.close());

  const expectStatus = async (p: Promise<unknown>, status: number) => {
    const e = await p.then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(OdrApiError);
    expect((e as OdrApiError).status).toBe(status);
  };

  it('a user may name themself, but not someone else (403), on every route that reads user_email', async () => {
    const mine = await user.createRecord(SYNTH.dataset, { user_email: USER.email });
    expect(mine._record_metadata._create_auth).toBe(USER.email);
    const before = t.digest();
    await expectStatus(user.createRecord(SYNTH.dataset, { user_email: ADMIN.email }), 403);
    await expectStatus(
      user.request('POST', `/record/${mine.record_uuid}/${TEXT}/value`, { json: { value: 'x', user_email: ADMIN.email } }),
      403,
    );
    await expectStatus(
      user.request('PUT', `/record/${mine.record_uuid}/${RADIO}/${OPT}/selected`, { query: { user_email: ADMIN.email } }),
      403,
    );
    await expectStatus(user.setPublic({ user_email: ADMIN.email, dataset_uuid: SYNTH.dataset, record_uuid: mine.record_uuid }), 403);
    await expectStatus(user.request('DELETE', '/record', { json: { record_uuids: [mine.record_uuid], user_email: ADMIN.email } }), 403);
    await expectStatus(
      user.request('POST', '/dataset/record', { json: { user_email: ADMIN.email, dataset: { record_uuid: mine.record_uuid } } }),
      403,
    );
    await expectStatus(user.request('GET', `/dataset/quota/${SYNTH.dataset}`, { query: { user_email: ADMIN.email } }), 403);
    expect(t.digest()).toBe(before);
  });

  it('a super-user acts as another user; an unknown email is 404', async () => {
    const r = await t.admin.createRecord(SYNTH.dataset, { user_email: USER.email });
    expect(r._record_metadata._create_auth).toBe(USER.email);
    // the record now belongs to the user, who may edit and delete it
    await user.setValue(r.record_uuid, TEXT, 'mine');
    await expectStatus(t.admin.createRecord(SYNTH.dataset, { user_email: 'nobody@nowhere.test' }), 404);
  });

  it('deleting needs delete permission: not the creator → 403 and nothing deleted; creator → 200', async () => {
    const adminRecord = await t.admin.createRecord(SYNTH.dataset);
    const own = await user.createRecord(SYNTH.dataset);
    const before = t.digest();
    await expectStatus(user.deleteRecords([own.record_uuid, adminRecord.record_uuid]), 403);
    expect(t.digest()).toBe(before);
    expect(await user.deleteRecords([own.record_uuid])).toEqual({ deleted: [own.record_uuid], count: 1 });
  });

  it('a user may not edit records created by someone else (403)', async () => {
    const before = t.digest();
    await expectStatus(user.setValue(R, TEXT, 'not mine'), 403);
    await expectStatus(user.save({ record_uuid: R, fields: [{ field_uuid: TEXT, value: 'not mine' }] }), 403);
    expect(t.digest()).toBe(before);
  });
});
