import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OdrClient } from '../../shared/client/odrClient.js';
import { BlobStore } from '../../electron/service/domain/files/blobStore.js';
import { SYNTH } from '../../bench/synthetic.js';
import { USER, startSyntheticService, type TestService } from '../support/service.js';

// POST /local/records/{uuid}/restore: a deleted top-level record comes back whole (values,
// child records, files with their bytes, creators) for 30 days, for whoever could delete it.
// A deleted child record on its own: childRestore.test.ts.

const FILE = SYNTH.field('File');
const TEXT = SYNTH.field('Medium Text');
const DAY = 86_400_000;
let now = new Date('2026-03-01T10:00:00Z');
let t: TestService;
let user: OdrClient;

const restore = async (uuid: string, client: OdrClient = t.admin) => {
  const res = await fetch(t.api.replace(/\/api\/v4$/, `/local/records/${uuid}/restore`), {
    method: 'POST',
    headers: { Authorization: `Bearer ${client.token}` },
  });
  return { status: res.status, body: (await res.json()) as { record_uuid?: string; error?: { code: string; message: string } } };
};
const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: unknown) => (e as { status?: number }).status ?? -1,
  );
const db = () => t.service.ctx.db;
/** The file `upload` put on a record. */
const fileRow = (record: string) =>
  db()
    .prepare(
      'SELECT f.uuid, f.content_hash, f.created_by FROM files f JOIN records r ON r.rid = f.record_rid WHERE r.uuid = ? AND f.original_name = ?',
    )
    .get(record, `r${Number(record.slice(-6))}.txt`) as { uuid: string; content_hash: string; created_by: number };
const creatorOf = (record: string) => db().prepare('SELECT created_by FROM records WHERE uuid = ?').pluck().get(record) as number;
const blobs = () => new BlobStore(t.service.ctx);
const upload = (i: number, bytes: string) =>
  t.admin.uploadFile(
    { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(i), field_uuid: FILE },
    { blob: new Blob([bytes], { type: 'text/plain' }), name: `r${i}.txt` },
  );

beforeAll(async () => {
  t = await startSyntheticService(25, { clock: () => now, config: { tokenTtlSeconds: 10 * 365 * 86400 } });
  user = await t.loginAs(USER.email, USER.password);
});
afterAll(() => t.close());

describe('POST /local/records/{uuid}/restore', () => {
  it('puts a deleted record back whole: values, child records, files and their bytes, creators', async () => {
    const uuid = SYNTH.record(10);
    await t.admin.setValue(uuid, TEXT, 'before the delete');
    await upload(10, 'bytes kept in the trash 10');
    const before = await t.admin.record(uuid);
    expect(before.records.length).toBeGreaterThan(0);
    const file = fileRow(uuid);
    const creator = creatorOf(uuid);
    const place = db().prepare('SELECT rid FROM records WHERE uuid = ?').pluck().get(uuid);

    await t.admin.deleteRecords([uuid]);
    expect(await status(t.admin.record(uuid))).toBe(404);
    // The bytes stay while the record can come back.
    expect(existsSync(blobs().pathOf(file.content_hash))).toBe(true);

    const r = await restore(uuid);
    expect(r.status).toBe(200);
    expect(r.body.record_uuid).toBe(uuid);
    expect(await t.admin.record(uuid)).toEqual(before);
    expect(fileRow(uuid)).toEqual(file);
    expect(creatorOf(uuid)).toBe(creator);
    // Back in its place in the list (the default order is storage order).
    expect(db().prepare('SELECT rid FROM records WHERE uuid = ?').pluck().get(uuid)).toBe(place);
    const res = await t.admin.send('GET', `/file/${file.uuid}`);
    expect(await res.text()).toBe('bytes kept in the trash 10');
    // Once back it is no longer in the trash.
    expect((await restore(uuid)).status).toBe(404);
  });

  it('is refused to who could not have deleted it, and for what is not in the trash; nothing changes', async () => {
    const uuid = SYNTH.record(2);
    await t.admin.deleteRecords([uuid]);
    const before = t.digest();
    // Who may not restore it learns nothing: the same 404 as for a uuid never deleted.
    const denied = await restore(uuid, user);
    expect(denied.status).toBe(404);
    expect(denied.body.error?.message).toMatch(/not in the trash/);
    const unknown = await restore('0123456789abcdef0123456789abcdef');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.message).toBe(denied.body.error?.message?.replace(uuid, '0123456789abcdef0123456789abcdef'));
    expect(t.digest()).toBe(before);
    expect((await restore(uuid)).status).toBe(200);
  });

  it('a record created by a user comes back for that user', async () => {
    const made = await user.createRecord(SYNTH.dataset);
    await user.setValue(made.record_uuid, TEXT, 'mine');
    await user.deleteRecords([made.record_uuid]);
    const r = await restore(made.record_uuid, user);
    expect(r.status).toBe(200);
    expect(creatorOf(made.record_uuid)).toBe(t.service.domain.users.findByEmail(USER.email)!.id);
  });

  it('after 30 days the entry expires and the bytes only it held are removed', async () => {
    const uuid = SYNTH.record(4);
    await upload(4, 'bytes only the trash holds 4');
    const hash = fileRow(uuid).content_hash;
    await t.admin.deleteRecords([uuid]);
    now = new Date(now.getTime() + 31 * DAY);
    expect((await restore(uuid)).status).toBe(404);
    // The next delete purges expired entries.
    await t.admin.deleteRecords([SYNTH.record(5)]);
    expect(existsSync(blobs().pathOf(hash))).toBe(false);
    expect(db().prepare('SELECT COUNT(*) FROM record_trash WHERE record_uuid = ?').pluck().get(uuid)).toBe(0);
  });

  it('writes no template: a field removed since the delete stays removed and keeps its value', async () => {
    const uuid = SYNTH.record(12);
    const short = SYNTH.field('Short Text');
    await t.admin.setValue(uuid, TEXT, 'medium kept');
    await t.admin.setValue(uuid, short, 'under a removed field');
    await t.admin.deleteRecords([uuid]);
    // The field goes from the template after the delete, as a pull of a template change does.
    db().prepare('UPDATE datafields SET removed_at = ? WHERE uuid = ?').run('2026-03-01 12:00:00', short);
    t.service.ctx.schema.changed();
    const template = () =>
      JSON.stringify([
        db().prepare('SELECT * FROM datafields ORDER BY id').all(),
        db().prepare('SELECT * FROM radio_options ORDER BY id').all(),
        db().prepare('SELECT * FROM tags ORDER BY id').all(),
      ]);
    const before = template();
    try {
      const r = await restore(uuid);
      expect(r.status).toBe(200);
      expect(template(), 'the template is unchanged').toBe(before);
      const back = await t.admin.record(uuid);
      expect(back.fields.find((f) => f.field_uuid === TEXT)?.value).toBe('medium kept');
      expect(
        back.fields.some((f) => f.field_uuid === short),
        'a removed field is not shown',
      ).toBe(false);
      const kept = db()
        .prepare(
          'SELECT v.value FROM field_values v JOIN records r ON r.rid = v.record_rid JOIN datafields f ON f.id = v.datafield_id WHERE r.uuid = ? AND f.uuid = ?',
        )
        .pluck()
        .get(uuid, short);
      expect(kept, 'the value stays under the removed field row').toBe('under a removed field');
    } finally {
      db().prepare('UPDATE datafields SET removed_at = NULL WHERE uuid = ?').run(short);
      t.service.ctx.schema.changed();
    }
  });

  it('brings back values hidden under a field removed before the delete', async () => {
    const uuid = SYNTH.record(14);
    const short = SYNTH.field('Short Text');
    await t.admin.setValue(uuid, short, 'hidden when deleted');
    const valueUnder = () =>
      db()
        .prepare(
          'SELECT v.value FROM field_values v JOIN records r ON r.rid = v.record_rid JOIN datafields f ON f.id = v.datafield_id WHERE r.uuid = ? AND f.uuid = ?',
        )
        .pluck()
        .get(uuid, short);
    db().prepare('UPDATE datafields SET removed_at = ? WHERE uuid = ?').run('2026-03-01 12:00:00', short);
    t.service.ctx.schema.changed();
    try {
      expect(valueUnder()).toBe('hidden when deleted');
      await t.admin.deleteRecords([uuid]);
      expect((await restore(uuid)).status).toBe(200);
      expect(valueUnder(), 'the hidden value is back under the removed field').toBe('hidden when deleted');
    } finally {
      db().prepare('UPDATE datafields SET removed_at = NULL WHERE uuid = ?').run(short);
      t.service.ctx.schema.changed();
    }
  });

  it('drops, and names in its log entry, values whose field is gone from storage', async () => {
    const uuid = SYNTH.record(16);
    const xyz = SYNTH.field('Long Text');
    await t.admin.setValue(uuid, xyz, 'under a field that goes');
    const before = await t.admin.record(uuid);
    expect(before.fields.some((f) => f.field_uuid === xyz)).toBe(true);
    await t.admin.deleteRecords([uuid]);
    // The field's row goes entirely (the last test here: nothing else needs it).
    db().prepare('DELETE FROM datafields WHERE uuid = ?').run(xyz);
    t.service.ctx.schema.changed();
    expect((await restore(uuid)).status).toBe(200);
    expect(db().prepare('SELECT COUNT(*) FROM datafields WHERE uuid = ?').pluck().get(xyz), 'not made again').toBe(0);
    const logged = db()
      .prepare("SELECT new FROM change_log WHERE op = 'record.restore' AND record_uuid = ? ORDER BY seq DESC LIMIT 1")
      .pluck()
      .get(uuid) as string;
    expect(JSON.parse(logged)).toEqual({ dropped: [`field ${xyz}`] });
    const back = await t.admin.record(uuid);
    expect(back.fields.map((f) => f.field_uuid)).toEqual(before.fields.map((f) => f.field_uuid).filter((f) => f !== xyz));
  });
});
