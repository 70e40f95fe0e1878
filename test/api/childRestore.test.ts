import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OdrClient } from '../../shared/client/odrClient.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { BlobStore } from '../../electron/service/domain/files/blobStore.js';
import { USER, startService, type TestService } from '../support/service.js';

// A removed child record goes to the record trash like a top-level one: restored under its
// parent with the same uuids, values, selections, tags, files (bytes held) and its own children.

const u = (tag: string, n: number) => `${tag}${String(n).padStart(31 - tag.length, '0')}`.padEnd(32, '0');
const TOP = u('d0', 1);
const CHILD_DS = u('d1', 1);
const GRAND_DS = u('d2', 1);
const F = { title: u('f0', 1), text: u('f1', 1), pick: u('f1', 2), tags: u('f1', 3), file: u('f1', 4), note: u('f2', 1) };
const OPT = u('a1', 1);
const TAG = u('b1', 1);
const STAMP = '2026-02-01 10:00:00';
const DAY = 86_400_000;
let now = new Date('2026-03-01T10:00:00Z');
let t: TestService;
let user: OdrClient;

const meta = { _create_date: STAMP, _update_date: STAMP, _create_auth: 'Test', _public_date: STAMP };
const head = (uuid: string, name: string, id: number) => ({ field_uuid: uuid, field_name: name, template_field_uuid: null, id });
/** Parent `i` with one child (text, option, tag, file) which has one grandchild. */
const tree = (i: number) => ({
  database_uuid: TOP,
  internal_id: 70_000 + i,
  record_name: `P${i}`,
  record_uuid: u('e0', i),
  template_uuid: '',
  metadata_for_uuid: '',
  _record_metadata: meta,
  fields: [{ ...head(F.title, 'Title', 1), value: `P${i}` }],
  records: [
    {
      database_uuid: CHILD_DS,
      internal_id: 80_000 + i,
      record_name: `C${i}`,
      record_uuid: u('e1', i),
      template_uuid: '',
      metadata_for_uuid: '',
      _record_metadata: meta,
      fields: [
        { ...head(F.text, 'Text', 2), value: `child ${i}` },
        { ...head(F.pick, 'Pick', 3), values: [{ id: 1, template_radio_option_uuid: OPT, name: 'one', selected: 1 as const }] },
        { ...head(F.tags, 'Tags', 4), tags: [{ id: 1, template_tag_uuid: TAG, name: 'tagged', selected: 1 as const }] },
        { ...head(F.file, 'File', 5), files: [{ id: 90_000 + i, file_uuid: u('c1', i), href: '', original_name: 'old.txt' }] },
      ],
      records: [
        {
          database_uuid: GRAND_DS,
          internal_id: 85_000 + i,
          record_name: `G${i}`,
          record_uuid: u('e2', i),
          template_uuid: '',
          metadata_for_uuid: '',
          _record_metadata: meta,
          fields: [{ ...head(F.note, 'Note', 6), value: `grandchild ${i}` }],
          records: [],
        },
      ],
    },
  ],
});
/** Parent `i` with three children (each as `tree`'s, with its grandchild), in that order. */
const withThree = (i: number) => {
  const top = tree(i);
  const [only] = top.records;
  top.records = [1, 2, 3].map((k) => ({
    ...only!,
    internal_id: 81_000 + 10 * i + k,
    record_name: `C${i}.${k}`,
    record_uuid: u('e3', 10 * i + k),
    fields: only!.fields.map((f) =>
      'files' in f ? { ...f, files: f.files.map((x) => ({ ...x, id: 91_000 + 10 * i + k, file_uuid: u('c3', 10 * i + k) })) } : f,
    ),
    records: only!.records.map((g) => ({ ...g, internal_id: 86_000 + 10 * i + k, record_uuid: u('e4', 10 * i + k) })),
  }));
  return top;
};
const parentOf = (i: number) => u('e0', i);
const childOf = (i: number) => u('e1', i);

const local = (path: string) => t.api.replace(/\/api\/v4$/, `/local${path}`);
const restore = async (uuid: string, client: OdrClient = t.admin) => {
  const res = await fetch(local(`/records/${uuid}/restore`), { method: 'POST', headers: { Authorization: `Bearer ${client.token}` } });
  return { status: res.status, body: (await res.json()) as { record_uuid?: string; error?: { code: string; message: string } } };
};
type Entry = { record_uuid: string; dataset_name: string | null; parent_uuid: string | null; parent_name: string | null };
const trash = async (client: OdrClient = t.admin) => {
  const res = await fetch(local('/records/trash'), { headers: { Authorization: `Bearer ${client.token}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { records: Entry[] }).records;
};
const upload = (i: number, bytes: string) =>
  t.admin.uploadFile(
    { dataset_uuid: CHILD_DS, record_uuid: childOf(i), field_uuid: F.file },
    { blob: new Blob([bytes], { type: 'text/plain' }), name: `bytes${i}.txt` },
  );
/** The stored bytes' hash of the file `upload` put on child `i`. */
const fileHash = (i: number) =>
  t.service.ctx.db
    .prepare('SELECT f.content_hash FROM files f JOIN records r ON r.rid = f.record_rid WHERE r.uuid = ? AND f.content_hash IS NOT NULL')
    .pluck()
    .get(childOf(i)) as string;
/** The parent as GET /dataset/record answers, less its own update date (a child's delete and restore touch it). */
const parentNow = async (i: number) => {
  const r = await t.admin.record(parentOf(i));
  return { ...r, _record_metadata: { ...r._record_metadata, _update_date: '' } } as OdrRecord;
};

beforeAll(async () => {
  t = await startService({ clock: () => now, config: { tokenTtlSeconds: 10 * 365 * 86400 } });
  await t.importJson({ count: 7, records: [...[1, 2, 3, 4].map(tree), withThree(5), tree(6), tree(7)] });
  await t.service.domain.users.create({ email: USER.email, password: USER.password });
  user = await t.loginAs(USER.email, USER.password);
});
afterAll(() => t.close());

describe('a removed child record goes to the trash', () => {
  it('is listed naming its parent, and its restore gives back the parent exactly as before', async () => {
    await upload(1, 'child bytes 1');
    const before = await parentNow(1);
    const hash = fileHash(1);
    const child = before.records[0]!;
    expect(child.records).toHaveLength(1);
    expect(child.fields.map((f) => [f.value ?? f.values?.length ?? f.tags?.length ?? f.files?.length])).toEqual([
      ['child 1'],
      [1],
      [1],
      [2],
    ]);

    await t.admin.deleteRecords([childOf(1)]);
    expect((await t.admin.record(parentOf(1))).records).toHaveLength(0);
    const listed = (await trash()).find((e) => e.record_uuid === childOf(1));
    expect(listed).toMatchObject({ dataset_name: `Dataset ${CHILD_DS}`, parent_uuid: parentOf(1), parent_name: 'P1' });
    expect(existsSync(new BlobStore(t.service.ctx).pathOf(hash)), 'the trash holds the bytes').toBe(true);

    const r = await restore(childOf(1));
    expect(r.status).toBe(200);
    expect(r.body.record_uuid).toBe(childOf(1));
    expect(await parentNow(1)).toEqual(before);
    const file = before.records[0]!.fields.find((f) => f.field_uuid === F.file)!.files!.find((f) => f.original_name !== 'old.txt')!;
    expect(await (await t.admin.send('GET', `/file/${file.file_uuid}`)).text()).toBe('child bytes 1');
    expect(
      (await trash()).some((e) => e.record_uuid === childOf(1)),
      'gone from the trash',
    ).toBe(false);
    expect((await restore(childOf(1))).status).toBe(404);
  });

  it('restored, keeps its place among its siblings (the first of three comes back first)', async () => {
    const before = await parentNow(5);
    const order = before.records.map((c) => c.record_uuid);
    expect(order).toEqual([1, 2, 3].map((k) => u('e3', 50 + k)));
    await t.admin.deleteRecords([order[0]!]);
    expect((await t.admin.record(parentOf(5))).records.map((c) => c.record_uuid)).toEqual(order.slice(1));
    expect((await restore(order[0]!)).status).toBe(200);
    expect((await t.admin.record(parentOf(5))).records.map((c) => c.record_uuid)).toEqual(order);
    expect(await parentNow(5)).toEqual(before);
  });

  it('is hidden from, and not restored for, a user who may not edit it; nothing changes', async () => {
    await t.admin.deleteRecords([childOf(2)]);
    expect((await trash(user)).some((e) => e.record_uuid === childOf(2))).toBe(false);
    const before = t.digest();
    const denied = await restore(childOf(2), user);
    expect(denied.status).toBe(404);
    expect(denied.body.error?.message).toMatch(/not in the trash for you/);
    expect(t.digest()).toBe(before);
    expect((await restore(childOf(2))).status).toBe(200);
  });

  it("the top-level record's creator, who may remove its children, may restore one", async () => {
    const userId = t.service.domain.users.findByEmail(USER.email)!.id;
    // As if the user had made the parent: the child's edit right comes from the top-level record.
    t.service.ctx.db.prepare('UPDATE records SET created_by = ? WHERE uuid = ?').run(userId, parentOf(2));
    const before = await parentNow(2);
    await user.deleteRecords([childOf(2)]);
    expect((await trash(user)).map((e) => e.record_uuid)).toContain(childOf(2));
    expect((await restore(childOf(2), user)).status).toBe(200);
    expect(await parentNow(2)).toEqual(before);
  });

  it('with its parent deleted: refused (restore the parent first), the parent comes back, then the child', async () => {
    const whole = await parentNow(3);
    await t.admin.deleteRecords([childOf(3)]);
    await t.admin.deleteRecords([parentOf(3)]);
    const before = t.digest();
    const refused = await restore(childOf(3));
    expect(refused.status).toBe(409);
    expect(refused.body.error?.message).toMatch(/restore the parent record first/);
    expect(t.digest(), 'nothing half-restored').toBe(before);
    // Its parent's entry gone (expired: purged here by hand): said so.
    const kept = t.service.ctx.db.prepare('SELECT * FROM record_trash WHERE record_uuid = ?').get(parentOf(3)) as Record<string, unknown>;
    t.service.ctx.db.prepare('DELETE FROM record_trash WHERE record_uuid = ?').run(parentOf(3));
    const orphan = await restore(childOf(3));
    expect(orphan.status).toBe(409);
    expect(orphan.body.error?.message).toMatch(/no longer in the trash: it cannot come back/);
    const cols = Object.keys(kept);
    t.service.ctx.db
      .prepare(`INSERT INTO record_trash (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`)
      .run(...Object.values(kept));
    expect((await restore(parentOf(3))).status).toBe(200);
    expect((await t.admin.record(parentOf(3))).records, 'the child deleted before its parent is an entry of its own').toHaveLength(0);
    expect((await restore(childOf(3))).status).toBe(200);
    expect(await parentNow(3)).toEqual(whole);
  });

  it("a grandchild whose parent went with an ancestor's delete: names that ancestor to restore first", async () => {
    const whole = await parentNow(6);
    const grand = u('e2', 6);
    await t.admin.deleteRecords([grand]);
    await t.admin.deleteRecords([parentOf(6)]);
    const before = t.digest();
    const refused = await restore(grand);
    expect(refused.status).toBe(409);
    expect(refused.body.error?.message).toContain(`was deleted with record ${parentOf(6)}: restore record ${parentOf(6)} first`);
    expect(t.digest(), 'nothing half-restored').toBe(before);
    expect((await restore(parentOf(6))).status).toBe(200);
    expect((await restore(grand)).status).toBe(200);
    // Its parent's update date moved with the grandchild's delete and restore, like the top's.
    const undated = (r: OdrRecord) => ({
      ...r,
      records: r.records.map((c) => ({ ...c, _record_metadata: { ...c._record_metadata, _update_date: '' } })),
    });
    expect(undated(await parentNow(6))).toEqual(undated(whole));
  });

  it('with its parent\'s entry expired but not purged yet: it cannot come back (no "restore the parent first")', async () => {
    await t.admin.deleteRecords([childOf(7)]);
    await t.admin.deleteRecords([parentOf(7)]);
    const expiry = (uuid: string, at: string) =>
      t.service.ctx.db.prepare('UPDATE record_trash SET expires_at = ? WHERE record_uuid = ?').run(at, uuid);
    const kept = t.service.ctx.db.prepare('SELECT expires_at FROM record_trash WHERE record_uuid = ?').pluck().get(parentOf(7)) as string;
    expiry(parentOf(7), new Date(now.getTime() - 1000).toISOString());
    const before = t.digest();
    const refused = await restore(childOf(7));
    expect(refused.status).toBe(409);
    expect(refused.body.error?.message).toMatch(/no longer in the trash: it cannot come back/);
    expect(t.digest()).toBe(before);
    expiry(parentOf(7), kept);
    expect((await restore(parentOf(7))).status).toBe(200);
    expect((await restore(childOf(7))).status).toBe(200);
  });

  it('deleted with its parent: the parent restore brings the whole tree', async () => {
    const whole = await t.admin.record(parentOf(4));
    await t.admin.deleteRecords([parentOf(4)]);
    expect(
      (await trash()).some((e) => e.record_uuid === childOf(4)),
      'not an entry of its own',
    ).toBe(false);
    expect((await restore(parentOf(4))).status).toBe(200);
    expect(await t.admin.record(parentOf(4))).toEqual(whole);
  });

  it('expires after 30 days with the bytes only it held', async () => {
    await upload(2, 'child bytes 2');
    const hash = fileHash(2);
    await t.admin.deleteRecords([childOf(2)]);
    now = new Date(now.getTime() + 31 * DAY);
    expect((await restore(childOf(2))).status).toBe(404);
    expect((await trash()).some((e) => e.record_uuid === childOf(2))).toBe(false);
    await t.admin.deleteRecords([childOf(1)]); // the next delete purges expired entries
    expect(existsSync(new BlobStore(t.service.ctx).pathOf(hash))).toBe(false);
  });
});
