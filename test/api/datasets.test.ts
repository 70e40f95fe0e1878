import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OdrClient } from '../../shared/client/odrClient.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { SYNTH } from '../../bench/synthetic.js';
import { USER, startSyntheticService, type TestService } from '../support/service.js';

// DELETE /dataset/{uuid} to a 30-day trash and back, and the legacy id-based downloads, over
// real HTTP.

let t: TestService;
let user: OdrClient;
let now = new Date('2026-03-01T10:00:00Z');
let fileUuid: string;
let fileId: number;
let usersRecord: string;
const bytes = 'id,mass\n1,2.5\n';

const readAll = async (c: OdrClient) => (await c.request<{ records: OdrRecord[] }>('GET', `/dataset/${SYNTH.dataset}/1000/0`)).records;
/** The /local routes sit beside /api/v4. */
async function local<T>(c: OdrClient, method: string, p: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${new URL(t.api).origin}/local${p}`, { method, headers: { Authorization: `Bearer ${c.token}` } });
  return { status: res.status, body: (await res.json()) as T };
}
const errorOf = async (r: Promise<Response>) => {
  const res = await r;
  return { status: res.status, body: (await res.json()) as { error: { code: number; message: string } } };
};

beforeAll(async () => {
  t = await startSyntheticService(20, { clock: () => now, config: { tokenTtlSeconds: 10 * 365 * 86400 } });
  user = await t.loginAs(USER.email, USER.password);
  usersRecord = (await user.createRecord(SYNTH.dataset)).record_uuid;
  const rec = await t.admin.uploadFile(
    { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(1), field_uuid: SYNTH.field('File') },
    { blob: new Blob([bytes]), name: 'masses.csv' },
  );
  const f = rec.fields.find((x) => x.field_uuid === SYNTH.field('File'))!.files!.find((x) => x.original_name === 'masses.csv')!;
  fileUuid = f.file_uuid;
  fileId = f.id;
});
afterAll(() => t.close());

describe('legacy downloads', () => {
  it('GET /search/file_download/{id} redirects to the file by uuid; unknown ids are 404', async () => {
    const res = await t.admin.send('GET', `/search/file_download/${fileId}`, {});
    expect(res.status).toBe(200); // fetch followed the 302, keeping the Bearer header (same origin)
    expect(await res.text()).toBe(bytes);
    const manual = await fetch(`${t.api}/search/file_download/${fileId}`, {
      headers: { Authorization: `Bearer ${t.admin.token}` },
      redirect: 'manual',
    });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe(`${t.api}/file/${fileUuid}`);
    const missing = await errorOf(t.admin.send('GET', '/search/image_download/424242'));
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toMatch(/Image can't be found/);
    expect((await t.client().send('GET', `/search/file_download/${fileId}`)).status).toBe(401);
  });
});

describe('GET /auth/status and /dataset/{uuid}/modified_files', () => {
  it('auth/status says whether the token is valid, never failing', async () => {
    const status = async (auth?: string) => (await fetch(`${t.api}/auth/status`, { headers: auth ? { Authorization: auth } : {} })).json();
    expect(await status()).toEqual({ logged_in: false });
    expect(await status('Bearer not.a.jwt')).toEqual({ logged_in: false });
    expect(await status(`Bearer ${t.admin.token}`)).toEqual({ logged_in: true });
  });

  it('lists names of files on readable records changed since `recent`', async () => {
    const since = now.getTime() - 1000;
    const names = async (c: OdrClient, recent: number | string) =>
      (await c.request<{ files: string[] }>('GET', `/dataset/${SYNTH.dataset}/modified_files/${recent}/0/0`)).files;
    // Record 1 got masses.csv in this run (and had spectrum-… from the import? only i % 5 === 0).
    expect(await names(t.admin, since)).toEqual(['masses.csv']);
    expect(await names(t.admin, now.getTime() + 60_000)).toEqual([]);
    // Non-numeric means "now"; this test's clock stands still at the upload's second.
    expect(await names(t.admin, 'now')).toEqual(['masses.csv']);
    const all = await names(t.admin, 0);
    expect(all).toContain('spectrum-0.csv');
    expect(all).toContain('spectrum-15.csv');
    // Records 0 and 15 are private (i % 3 === 0): the ordinary user does not see their files.
    const theirs = await names(user, 0);
    expect(theirs).not.toContain('spectrum-0.csv');
    expect(theirs).toContain('spectrum-5.csv');
    expect((await errorOf(t.admin.send('GET', '/dataset/ffff0000/modified_files/0/0/0'))).status).toBe(404);
    expect((await errorOf(t.admin.send('GET', `/dataset/${SYNTH.child}/modified_files/0/0/0`))).body.error.message).toMatch(/top-level/);
    expect((await t.client().send('GET', `/dataset/${SYNTH.dataset}/modified_files/0/0/0`)).status).toBe(401);
  });
});

describe('DELETE /dataset/{uuid} and the trash', () => {
  it('refuses bad input and non-admins with an error body, changing nothing', async () => {
    const before = t.digest();
    const cases: [OdrClient, string, unknown, number, RegExp][] = [
      [user, SYNTH.dataset, undefined, 403, /admins/],
      [t.admin, 'ffff0000', undefined, 404, /can't be found/],
      [t.admin, SYNTH.child, undefined, 400, /top-level/],
      [t.admin, SYNTH.dataset, [1], 400, /JSON object/],
      [t.admin, SYNTH.dataset, { user_email: 5 }, 400, /user_email/],
      [user, SYNTH.dataset, { user_email: 'admin@test.local' }, 403, /./],
    ];
    for (const [c, uuid, body, status, msg] of cases) {
      const e = await errorOf(c.send('DELETE', `/dataset/${uuid}`, body === undefined ? {} : { json: body }));
      expect(e.status, `${uuid} ${JSON.stringify(body)}`).toBe(status);
      expect(e.body.error.message).toMatch(msg);
    }
    expect((await t.client().send('DELETE', `/dataset/${SYNTH.dataset}`)).status).toBe(401);
    expect(t.digest()).toBe(before);
  });

  it('deletes the dataset with records, children and files; restore brings back the same data, creators and bytes', async () => {
    const before = await readAll(t.admin);
    const beforeTemplate = await t.admin.template(SYNTH.dataset);
    const res = await t.admin.send('DELETE', `/dataset/${SYNTH.dataset}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('Deleted');

    expect((await t.admin.send('GET', `/template/${SYNTH.dataset}`)).status).toBe(404);
    expect((await t.admin.send('GET', `/dataset/record/${SYNTH.record(1)}`)).status).toBe(404);
    expect((await t.admin.send('GET', `/dataset/record/${SYNTH.childRecord(0, 0)}`)).status).toBe(404);
    expect((await t.admin.send('GET', `/file/${fileUuid}`)).status).toBe(404);
    expect((await t.admin.databases()).databases.map((x) => x.unique_id)).not.toContain(SYNTH.dataset);
    const rows = t.service.ctx.db
      .prepare(
        'SELECT (SELECT count(*) FROM records) r, (SELECT count(*) FROM field_values) v, (SELECT count(*) FROM files) f, (SELECT count(*) FROM datafields) df',
      )
      .get();
    expect(rows).toEqual({ r: 0, v: 0, f: 0, df: 0 });
    // The bytes left the content store (nothing else used them); the trash keeps its own link.
    const store = path.join(t.dataDir, 'files');
    const blobCount = (dir: string): number =>
      readdirSync(dir, { withFileTypes: true }).reduce(
        (n, e) => n + (e.isDirectory() ? (e.name === 'tmp' ? 0 : blobCount(path.join(dir, e.name))) : 1),
        0,
      );
    expect(blobCount(store)).toBe(0);

    const asUser = (await local<{ datasets: unknown[] }>(user, 'GET', '/trash')).body;
    expect(asUser.datasets).toEqual([]); // not theirs
    const trash = (
      await local<{ datasets: { id: string; dataset_uuid: string; name: string; records: number; expires_at: string }[] }>(
        t.admin,
        'GET',
        '/trash',
      )
    ).body;
    expect(trash.datasets).toHaveLength(1);
    const entry = trash.datasets[0]!;
    expect(entry).toMatchObject({
      dataset_uuid: SYNTH.dataset,
      name: 'Synthetic Samples',
      records: 21,
      expires_at: '2026-03-31T10:00:00.000Z',
    });

    expect((await local(user, 'POST', `/trash/${entry.id}/restore`)).status).toBe(403);
    expect((await local(t.admin, 'POST', '/trash/nope123/restore')).status).toBe(404);
    const restored = await local<{ dataset_uuid: string }>(t.admin, 'POST', `/trash/${entry.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.dataset_uuid).toBe(SYNTH.dataset);
    expect((await local<{ datasets: unknown[] }>(t.admin, 'GET', '/trash')).body.datasets).toEqual([]);

    const after = await readAll(t.admin);
    // The restore is an import: only the records' update stamps say so.
    const strip = (r: OdrRecord) =>
      JSON.parse(JSON.stringify(r), (k, v: unknown) => (k === '_update_date' || k === '_updated_date' ? undefined : v)) as unknown;
    expect(after.map(strip)).toEqual(before.map(strip));
    expect((await t.admin.template(SYNTH.dataset)).fields).toEqual(beforeTemplate.fields);
    expect(await (await t.admin.send('GET', `/file/${fileUuid}`)).text()).toBe(bytes);
    // The ordinary user's private record is theirs again: they read it, and may edit it.
    expect((await user.send('GET', `/dataset/record/${usersRecord}`)).status).toBe(200);
    expect(
      (await user.send('POST', `/record/${usersRecord}/${SYNTH.field('Short Text')}/value`, { json: { value: 'mine again' } })).status,
    ).toBe(200);
  });

  it('a dataset that exists again is not overwritten (409); entries older than 30 days are forgotten', async () => {
    expect((await t.admin.send('DELETE', `/dataset/${SYNTH.dataset}`)).status).toBe(200);
    const [entry] = (await local<{ datasets: { id: string }[] }>(t.admin, 'GET', '/trash')).body.datasets;
    await t.importJson((await import('../../bench/synthetic.js')).syntheticTemplate());
    const conflict = await local<{ error: { message: string } }>(t.admin, 'POST', `/trash/${entry!.id}/restore`);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.message).toMatch(/exists again/);
    now = new Date('2026-03-31T10:00:01Z');
    expect((await local<{ datasets: unknown[] }>(t.admin, 'GET', '/trash')).body.datasets).toEqual([]);
    expect(existsSync(path.join(t.dataDir, 'trash', entry!.id))).toBe(false);
  });
});
