import { getLocal, type Mockttp } from 'mockttp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RemoteClient, RemoteError } from '../../electron/service/sync/remoteClient.js';

// The remote is a server we do not control: here a mockttp server answers with the shapes real
// ODR servers emit (docs/odr-server.md §9), over real HTTP, and the sync client must cope with each.

let server: Mockttp;
let client: RemoteClient;
let logins: () => Promise<number>;
const base = () => `${server.url}/api/v4`;
const json = (body: unknown) => ({ statusCode: 200, json: body });

beforeEach(async () => {
  server = getLocal();
  await server.start();
  let n = 0;
  const token = await server.forPost('/api/v4/token').thenCallback(() => json({ token: `tok${++n}` }));
  logins = async () => (await token.getSeenRequests()).length;
  client = new RemoteClient(base(), 'me@example.org', 'pw');
});
afterEach(() => server.stop());

// A record as a legacy server sends it: 7-character uuids, `_updated_date`, HTML-escaped
// names, a Boolean as `selected`, tags under `value` with `children`, `fields` as an object.
const legacyRecord = {
  internal_id: 7,
  record_uuid: 'a1b2c3d',
  database_uuid: 'd4e5f6a',
  record_name: 'Basalt &amp; ash',
  _record_metadata: {
    _create_date: '2019-01-01 00:00:00',
    _updated_date: '2019-02-03 04:05:06',
    _public_date: '2200-01-01 00:00:00',
    _create_auth: 'Ann &#039;O',
    _update_auth: 'x',
  },
  fields: {
    0: { field_uuid: 'f000001', template_field_uuid: 'f000001', field_name: 'Site &amp; depth', value: 'Crater &lt;rim&gt;' },
    2: { field_uuid: 'f000002', template_field_uuid: 'f000002', field_name: 'Verified', selected: '1' },
    3: {
      field_uuid: 'f000003',
      template_field_uuid: 'f000003',
      field_name: 'Keywords',
      value: [{ name: 'Mineral', template_tag_uuid: 't000001', id: 3, children: [{ name: 'Oxide', template_tag_uuid: 't000002', id: 4 }] }],
    },
  },
  records: [],
};

describe('remote client against real-shaped server answers', () => {
  it('logs in, reads a legacy record and normalises every quirk', async () => {
    await server
      .forGet('/api/v4/dataset/record/a1b2c3d')
      .withHeaders({ authorization: 'Bearer tok1' })
      .thenReply(200, JSON.stringify(legacyRecord), { 'content-type': 'application/json' });
    const r = await client.record('a1b2c3d');
    expect(r.record_name).toBe('Basalt & ash');
    expect(r._record_metadata._update_date).toBe('2019-02-03 04:05:06');
    expect(r._record_metadata._create_auth).toBe("Ann 'O");
    const byField = new Map(r.fields.map((f) => [f.field_uuid, f]));
    expect(byField.get('f000002')!.selected).toBe(1);
    expect(byField.get('f000003')!.tags?.map((t) => t.template_tag_uuid)).toContain('t000001');
    expect(r.fields).toHaveLength(3);
  });

  it('follows the 302 of a create to the new record, with the Bearer token', async () => {
    await server.forPost('/api/v4/dataset/d4e5f6a/record').thenReply(302, '', { location: '/api/v4/dataset/record/a1b2c3d' });
    await server.forGet('/api/v4/dataset/record/a1b2c3d').withHeaders({ authorization: 'Bearer tok1' }).thenJson(200, legacyRecord);
    const r = await client.call((c) => c.createRecord('d4e5f6a', { created: '2026-11-22 10:00:00' }), true);
    expect(r.record_uuid).toBe('a1b2c3d');
  });

  it('answers an empty list (404) with no records, not an error', async () => {
    await server.forGet('/api/v4/dataset/d4e5f6a/100/0').thenJson(404, { error: { code: 404, message: 'No records found' } });
    await server.forGet('/api/v4/dataset/d4e5f6a/modified/records/0/0/0').thenJson(404, { error: { code: 404, message: 'No records' } });
    await server.forGet('/api/v4/search/database/d4e5f6a/records/0/0').thenJson(404, { error: { code: 404, message: 'No records' } });
    expect(await client.page('d4e5f6a', 100, 0)).toEqual([]);
    expect(await client.modifiedIds('d4e5f6a', 0)).toEqual([]);
    expect(await client.allIds('d4e5f6a')).toEqual([]);
  });

  it('logs in again after a 401 and after the 500 "Token was not found", then succeeds', async () => {
    await server
      .forGet('/api/v4/search/databases')
      .withHeaders({ authorization: 'Bearer tok1' })
      .thenJson(401, { error: { code: 401, message: 'Expired JWT Token' } });
    await server
      .forGet('/api/v4/search/databases')
      .withHeaders({ authorization: 'Bearer tok2' })
      .thenJson(500, { error: { code: 500, message: 'Token was not found' } });
    await server.forGet('/api/v4/search/databases').withHeaders({ authorization: 'Bearer tok3' }).thenJson(200, { databases: [] });
    // Two re-logins in one call are not tried: the second failure surfaces, the next call works.
    await expect(client.call((c) => c.databases())).rejects.toMatchObject({ kind: 'auth' });
    await expect(client.call((c) => c.databases())).resolves.toEqual({ databases: [] });
  });

  it("shares one session's token between its clients: one login for all, and the token a 401 renewed", async () => {
    const ok = { databases: [] };
    await server.forGet('/api/v4/search/databases').withHeaders({ authorization: 'Bearer tok1' }).times(2).thenJson(200, ok);
    await server
      .forGet('/api/v4/search/databases')
      .withHeaders({ authorization: 'Bearer tok1' })
      .thenJson(401, { error: { code: 401, message: 'Expired JWT Token' } });
    await server.forGet('/api/v4/search/databases').withHeaders({ authorization: 'Bearer tok2' }).thenJson(200, ok);
    await server.forGet('/api/v4/search/databases').withHeaders({ authorization: 'Bearer tok3' }).thenJson(200, ok);
    const session = {};
    const [a, b] = [new RemoteClient(base(), 'me@example.org', 'pw', session), new RemoteClient(base(), 'me@example.org', 'pw', session)];
    // A sync run's client, then a file download's: the second does not log in again.
    await expect(a.call((c) => c.databases())).resolves.toEqual(ok);
    await expect(b.call((c) => c.databases())).resolves.toEqual(ok);
    expect(await logins()).toBe(1);
    // The token expires: whichever client meets the 401 logs in, the other uses the new token.
    await expect(a.call((c) => c.databases())).resolves.toEqual(ok);
    await expect(b.call((c) => c.databases())).resolves.toEqual(ok);
    expect(await logins()).toBe(2);
    // A client of no session logs in for itself.
    await expect(client.call((c) => c.databases())).resolves.toEqual(ok);
    expect(await logins()).toBe(3);
  });

  it('logs in once for calls that meet a 401 at the same time, and once for concurrent first calls', async () => {
    const ok = { databases: [] };
    const session = {};
    const clients = Array.from({ length: 5 }, () => new RemoteClient(base(), 'me@example.org', 'pw', session));
    await server.forGet('/api/v4/search/databases').withHeaders({ authorization: 'Bearer tok1' }).times(5).thenJson(200, ok);
    // Concurrent calls with no token yet: one login between them.
    await Promise.all(clients.map((c) => expect(c.call((x) => x.databases())).resolves.toEqual(ok)));
    expect(await logins()).toBe(1);
    // The token expires while five calls are on their way: each meets a 401, one logs in again.
    const refused = await server
      .forGet('/api/v4/search/databases')
      .withHeaders({ authorization: 'Bearer tok1' })
      .times(5)
      .thenJson(401, { error: { code: 401, message: 'Expired JWT Token' } });
    await server.forGet('/api/v4/search/databases').withHeaders({ authorization: 'Bearer tok2' }).times(5).thenJson(200, ok);
    await Promise.all(clients.map((c) => expect(c.call((x) => x.databases())).resolves.toEqual(ok)));
    expect((await refused.getSeenRequests()).length).toBe(5);
    expect(await logins()).toBe(2);
  });

  it('tries a failed read again, but never a failed write; a 5xx write is "ambiguous"', async () => {
    let reads = 0;
    await server
      .forGet('/api/v4/search/databases')
      .thenCallback(() => (++reads < 3 ? { statusCode: 503, json: { error: { code: 503, message: 'busy' } } } : json({ databases: [] })));
    await expect(client.call((c) => c.databases())).resolves.toEqual({ databases: [] });
    expect(reads).toBe(3);

    let writes = 0;
    await server.forPost('/api/v4/record/a1b2c3d/f000001/value').thenCallback(() => {
      writes++;
      return { statusCode: 500, json: { error: { code: 500, message: 'boom' } } };
    });
    const err = await client.call((c) => c.setValue('a1b2c3d', 'f000001', 'x'), true).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteError);
    expect((err as RemoteError).kind).toBe('ambiguous');
    expect(writes).toBe(1);
  });

  it('classifies a dropped connection on a write as ambiguous and a refused login as auth', async () => {
    await server.forPost('/api/v4/record/a1b2c3d/f000001/value').thenCloseConnection();
    await expect(client.call((c) => c.setValue('a1b2c3d', 'f000001', 'x'), true)).rejects.toMatchObject({ kind: 'ambiguous' });
    const other = getLocal();
    await other.start();
    try {
      await other.forPost('/api/v4/token').thenJson(401, { error: { code: 401, message: 'Invalid credentials' } });
      const refused = new RemoteClient(`${other.url}/api/v4`, 'me@example.org', 'wrong');
      await expect(refused.login()).rejects.toMatchObject({ kind: 'auth' });
    } finally {
      await other.stop();
    }
  });
});
