import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_DATE } from '../../shared/dates.js';
import { ErrorBody } from '../../shared/schemas/common.js';
import { JsonLdDataset } from '../../shared/schemas/jsonld.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { SYNTH } from '../../bench/synthetic.js';
import { digestAll } from '../support/digest.js';
import { ADMIN, USER, startSyntheticService, type TestService } from '../support/service.js';

// POST /dataset/publish and GET /jsonld/{uuid} over real HTTP: auth, permissions, bad input
// (4xx with the error body, nothing changed), what publishing changes, and that JSON-LD shows
// exactly what record reads show each caller.

let t: TestService;
const tok = {} as { admin: string; user: string; editor: string };
const TEXT = SYNTH.field('Long Text');

async function call(token: string | null, method: string, p: string, form?: Record<string, string>) {
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const res = await fetch(`${t.api}${p}`, {
    method,
    headers,
    body: form ? new URLSearchParams(form).toString() : undefined,
    redirect: 'manual',
  });
  const text = await res.text();
  return { status: res.status, location: res.headers.get('location'), text, json: text.startsWith('{') ? JSON.parse(text) : null };
}

async function json(token: string, method: string, p: string, body: unknown) {
  const res = await fetch(`${t.api}${p}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as OdrRecord;
}

async function refused(status: number, message: RegExp, req: () => ReturnType<typeof call>) {
  const before = digestAll(t.service);
  const res = await req();
  expect(res.status, res.text).toBe(status);
  expect(ErrorBody.parse(res.json).error.message).toMatch(message);
  expect(digestAll(t.service)).toBe(before);
}

/** A new non-public dataset (admin's) with a first record holding a child, and a second record. */
async function privateDataset(name: string) {
  const made = await call(tok.admin, 'POST', '/dataset', { template_uuid: SYNTH.dataset, dataset_name: name });
  expect(made.status).toBe(302);
  const first = made.location!.split('/').pop()!;
  const dt = t.service.domain
    .schema()
    .topLevel()
    .find((d) => d.name === name)!;
  await json(tok.admin, 'POST', '/dataset/record', {
    record_uuid: first,
    fields: [{ field_uuid: dt.fields.find((f) => f.templateFieldUuid === TEXT)!.uuid, value: `${name} first` }],
    records: [{ record_uuid: '', database_uuid: dt.children[0]!.uuid, public_date: PRIVATE_DATE, fields: [] }],
  });
  const second = (await call(tok.admin, 'POST', `/dataset/${dt.uuid}/record`, { public_date: PRIVATE_DATE })).json.record_uuid as string;
  await json(tok.admin, 'POST', '/dataset/record', {
    record_uuid: second,
    fields: [{ field_uuid: dt.fields.find((f) => f.templateFieldUuid === TEXT)!.uuid, value: `${name} second secret` }],
  });
  return { uuid: dt.uuid, first, second, child: dt.children[0]!.uuid };
}

const record = (uuid: string) => t.service.domain.store.byUuid(uuid)!;

beforeAll(async () => {
  t = await startSyntheticService(3);
  await t.service.domain.users.create({ email: 'editor@test.local', password: 'editor-password-1' });
  const login = async (username: string, password: string) =>
    (
      (await (
        await fetch(`${t.api}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username, password }),
        })
      ).json()) as { token: string }
    ).token;
  tok.admin = await login(ADMIN.email, ADMIN.password);
  tok.user = await login(USER.email, USER.password);
  tok.editor = await login('editor@test.local', 'editor-password-1');
});
afterAll(() => t.close());

describe('POST /dataset/publish', () => {
  it('refuses bad input and callers without the right with 4xx and the error body, changing nothing', async () => {
    const ds = await privateDataset('Refusals');
    const other = await privateDataset('Other');
    await refused(401, /JWT Token not found/, () => call(null, 'POST', '/dataset/publish', { dataset_uuid: ds.uuid }));
    await refused(400, /dataset_uuid is required/, () => call(tok.admin, 'POST', '/dataset/publish', {}));
    await refused(404, /DataType can't be found/, () => call(tok.admin, 'POST', '/dataset/publish', { dataset_uuid: 'nosuch' }));
    await refused(400, /top-level/, () => call(tok.admin, 'POST', '/dataset/publish', { dataset_uuid: ds.child }));
    await refused(403, /owner, its admins and super-users may publish/, () =>
      call(tok.user, 'POST', '/dataset/publish', { dataset_uuid: ds.uuid }),
    );
    // An edit role is not enough: publishing changes the dataset.
    await call(tok.admin, 'POST', '/user/permissions', { user_email: 'editor@test.local', dataset_uuid: ds.uuid, permission: 'edit_all' });
    await refused(403, /owner, its admins and super-users may publish/, () =>
      call(tok.editor, 'POST', '/dataset/publish', { dataset_uuid: ds.uuid }),
    );
    await refused(403, /act for another user/, () =>
      call(tok.user, 'POST', '/dataset/publish', { dataset_uuid: ds.uuid, user_email: ADMIN.email }),
    );
    await refused(404, /unrecognized email/, () =>
      call(tok.admin, 'POST', '/dataset/publish', { dataset_uuid: ds.uuid, user_email: 'ghost@test.local' }),
    );
    await refused(404, /Datarecord can't be found/, () =>
      call(tok.admin, 'POST', '/dataset/publish', { dataset_uuid: ds.uuid, record_uuid: 'nosuchrecord' }),
    );
    await refused(400, /not in dataset/, () =>
      call(tok.admin, 'POST', '/dataset/publish', { dataset_uuid: ds.uuid, record_uuid: other.first }),
    );
    await refused(400, /public_date/, () =>
      call(tok.admin, 'POST', '/dataset/publish', { dataset_uuid: ds.uuid, public_date: 'next blue moon' }),
    );
  });

  it('publishes the dataset, its first record and the records under it, and answers 302 to its records', async () => {
    const ds = await privateDataset('Published');
    expect((await call(tok.user, 'GET', `/template/${ds.uuid}`)).status).toBe(403);
    const res = await call(tok.admin, 'POST', '/dataset/publish', { dataset_uuid: ds.uuid });
    expect(res.status).toBe(302);
    expect(res.location).toBe(`/api/v4/dataset/${ds.uuid}`);
    const followed = await call(tok.user, 'GET', res.location!.replace('/api/v4', ''));
    expect(followed.status).toBe(200);
    const seen = (followed.json.records as OdrRecord[]).map((r) => r.record_uuid);
    expect(seen).toEqual([ds.first]); // the second record stays private
    expect((followed.json.records as OdrRecord[])[0]!.records).toHaveLength(1); // with its child
    expect((await call(tok.user, 'GET', `/template/${ds.uuid}`)).status).toBe(200);
    expect(record(ds.second).public_date).toBe(PRIVATE_DATE);
    // Publishing again "now" keeps every date: nothing changes.
    const before = digestAll(t.service);
    expect((await call(tok.admin, 'POST', '/dataset/publish', { dataset_uuid: ds.uuid })).status).toBe(302);
    expect(digestAll(t.service)).toBe(before);
  });

  it('a named record and a future date: scheduled, not yet visible; a dataset admin by role may publish', async () => {
    const ds = await privateDataset('Scheduled');
    await call(tok.admin, 'POST', '/user/permissions', { user_email: 'editor@test.local', dataset_uuid: ds.uuid, permission: 'admin' });
    const res = await call(tok.editor, 'POST', '/dataset/publish', {
      dataset_uuid: ds.uuid,
      record_uuid: ds.second,
      public_date: '2199-01-01 00:00:00',
    });
    expect(res.status).toBe(302);
    expect(record(ds.second).public_date).toBe('2199-01-01 00:00:00');
    expect(record(ds.first).public_date).toBe(PRIVATE_DATE);
    expect((await call(tok.user, 'GET', `/template/${ds.uuid}`)).status).toBe(403);
  });
});

describe('GET /jsonld/{uuid}', () => {
  it('refuses like record reads: 401, 404, 400 for a child or a bad page, 403 for a dataset one may not see', async () => {
    const ds = await privateDataset('LD refusals');
    await refused(401, /JWT Token not found/, () => call(null, 'GET', `/jsonld/${ds.uuid}`));
    await refused(404, /Datatype can't be found/, () => call(tok.admin, 'GET', '/jsonld/nosuch'));
    await refused(400, /top-level/, () => call(tok.admin, 'GET', `/jsonld/${ds.child}`));
    await refused(403, /Insufficient permissions/, () => call(tok.user, 'GET', `/jsonld/${ds.uuid}`));
    await refused(400, /limit/, () => call(tok.admin, 'GET', `/jsonld/${ds.uuid}?limit=ten`));
    await refused(400, /limit/, () => call(tok.admin, 'GET', `/jsonld/${ds.uuid}?limit=20000`));
  });

  it('shows each caller exactly the records, children and values record reads show them', async () => {
    const ds = await privateDataset('LD visible');
    await call(tok.admin, 'POST', '/dataset/publish', { dataset_uuid: ds.uuid });
    // Publishing made the first record's child public too; make it private again.
    const child = ((await call(tok.admin, 'GET', `/dataset/record/${ds.first}`)).json as OdrRecord).records[0]!.record_uuid;
    const priv = await call(tok.admin, 'POST', '/dataset/record/public', {
      user_email: ADMIN.email,
      dataset_uuid: ds.child,
      record_uuid: child,
      public_date: PRIVATE_DATE,
    });
    expect(priv.status).toBeLessThan(400);
    const ld = async (token: string) => {
      const r = await call(token, 'GET', `/jsonld/${ds.uuid}`);
      expect(r.status, r.text).toBe(200);
      return { doc: JsonLdDataset.parse(r.json), text: r.text };
    };
    const asAdmin = await ld(tok.admin);
    const asUser = await ld(tok.user);
    expect(asAdmin.doc['@type']).toBe('Dataset');
    expect(asAdmin.doc.name).toBe('LD visible');
    expect(asAdmin.doc.hasPart.map((p) => p.identifier)).toEqual([ds.first, ds.second]);
    expect(asUser.doc.hasPart.map((p) => p.identifier)).toEqual([ds.first]);
    expect(asAdmin.text).toContain('LD visible second secret');
    expect(asUser.text).not.toContain('second secret');
    // The first record's private child: the admin sees it, the user does not (as GET /dataset/record).
    expect(asAdmin.doc.hasPart[0]!.hasPart).toHaveLength(1);
    expect(asUser.doc.hasPart[0]!.hasPart).toBeUndefined();
    const read = (await call(tok.user, 'GET', `/dataset/record/${ds.first}`)).json as OdrRecord;
    expect(read.records).toHaveLength(0);
    const value = asUser.doc.hasPart[0]!.variableMeasured.find((v) => v.value === 'LD visible first');
    expect(value?.name).toBe('Long Text field');
    // Paging.
    expect(
      (await call(tok.admin, 'GET', `/jsonld/${ds.uuid}?limit=1&offset=1`)).json.hasPart.map((p: { identifier: string }) => p.identifier),
    ).toEqual([ds.second]);
  });

  it("takes name, description and creators from the dataset's metadata record when the caller may read it", async () => {
    const ds = await privateDataset('LD with metadata');
    await call(tok.admin, 'POST', '/dataset/publish', { dataset_uuid: ds.uuid });
    const metaUuid = 'bb0000000000000000000000meta';
    const meta = { _create_date: '2025-01-01 00:00:00', _create_auth: 'x', _public_date: '2025-01-01 00:00:00' };
    const field = (uuid: string, template: string, name: string, fieldtype = 'Short Text') => ({
      internal_id: 0,
      name,
      description: '',
      fieldtype,
      field_uuid: uuid,
      template_field_uuid: template,
      updated_at: '2025-01-01 00:00:00',
      _field_metadata: meta,
    });
    await t.importJson({
      internal_id: 0,
      name: 'LD metadata',
      description: null,
      template_uuid: metaUuid,
      updated_at: '2025-01-01 00:00:00',
      metadata_for_uuid: ds.uuid,
      _database_metadata: meta,
      fields: [
        field('bb00000000000000000000000f01', '23db96d4f26a46af7de57a3da752', 'Dataset Name'),
        field('bb00000000000000000000000f02', '64caf7e390296f72d70bdf84a853', 'Description', 'Paragraph Text'),
      ],
      related_databases: [
        {
          internal_id: 0,
          name: 'Creators',
          description: null,
          template_uuid: 'a88ecce7c65356de38dd982db8c8',
          updated_at: '2025-01-01 00:00:00',
          metadata_for_uuid: '',
          _database_metadata: meta,
          fields: [field('bb00000000000000000000000f03', '59414503bf4fa640df1b0a2172b9', 'Creator name')],
          related_databases: [],
        },
      ],
    });
    const rec = (await call(tok.admin, 'POST', `/dataset/${metaUuid}/record`, { public_date: PRIVATE_DATE })).json.record_uuid as string;
    await json(tok.admin, 'POST', '/dataset/record', {
      record_uuid: rec,
      fields: [
        { field_uuid: 'bb00000000000000000000000f01', value: 'Catalogued name' },
        { field_uuid: 'bb00000000000000000000000f02', value: 'What it holds' },
      ],
      records: ['Ada Lovelace', 'Mary Somerville'].map((name) => ({
        record_uuid: '',
        database_uuid: 'a88ecce7c65356de38dd982db8c8',
        public_date: '2025-01-01 00:00:00',
        fields: [{ field_uuid: 'bb00000000000000000000000f03', value: name }],
      })),
    });
    const asAdmin = JsonLdDataset.parse((await call(tok.admin, 'GET', `/jsonld/${ds.uuid}`)).json);
    expect(asAdmin.name).toBe('Catalogued name');
    expect(asAdmin.description).toBe('What it holds');
    expect(asAdmin.creator['@list']).toEqual([
      { '@type': 'Person', name: 'Ada Lovelace' },
      { '@type': 'Person', name: 'Mary Somerville' },
    ]);
    // The metadata record is private: the user gets the dataset's own name, not the record's values.
    const asUser = (await call(tok.user, 'GET', `/jsonld/${ds.uuid}`)).text;
    expect(JsonLdDataset.parse(JSON.parse(asUser)).name).toBe('LD with metadata');
    expect(asUser).not.toContain('Ada Lovelace');
    // The metadata dataset's uuid names the dataset it describes.
    expect(JsonLdDataset.parse((await call(tok.admin, 'GET', `/jsonld/${metaUuid}`)).json).identifier).toBe(ds.uuid);
  });
});
