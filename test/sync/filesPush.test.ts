import { createHash, randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { TestService } from '../support/service.js';
import { attachedPair, CHILD_FILE, withChildFile, type RemoteProc } from './support.js';

// Files made, changed and deleted here reach the server exactly once; the server's deletions
// and changes come back; a file deleted on one side and changed on the other is a conflict.

const FILE = SYNTH.field('File');
const IMAGE = SYNTH.field('Image');
const PRIVATE = '2200-01-01 00:00:00';
let remote: RemoteProc;
let local: TestService;
let remoteId: number;

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
type FileList = NonNullable<OdrRecord['fields'][number]['files']>;
const originals = (r: OdrRecord, f: string, record = r.record_uuid): FileList => {
  const find = (x: OdrRecord): OdrRecord | undefined =>
    x.record_uuid === record ? x : (x.records ?? []).map(find).find((y) => y !== undefined);
  return (find(r)?.fields.find((x) => x.field_uuid === f)?.files ?? []).filter((e) => e.parent_image_id === undefined);
};
const run = async () => {
  const s = await local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
  expect(s.error).toBeUndefined();
  return s;
};
const remoteBytes = async (uuid: string) => {
  const res = await fetch(`${remote.url}/file/${uuid}`, { headers: { Authorization: `Bearer ${remote.client.token}` } });
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
};
const remoteOf = (local_uuid: string) =>
  local.service.ctx.db.prepare('SELECT remote_uuid FROM sync_file_map WHERE local_uuid = ?').pluck().get(local_uuid) as string;
const upload = (c: TestService['admin'], record: string, field: string, bytes: Uint8Array, name: string, dataset = SYNTH.dataset) =>
  c.uploadFile(
    { dataset_uuid: dataset, record_uuid: record, field_uuid: field, template_field_uuid: '' },
    { blob: new Blob([bytes]), name },
  );
const setMeta = (c: TestService['admin'], record: string, field: string, file: string, meta: Record<string, unknown>) =>
  c.save({ record_uuid: record, fields: [{ field_uuid: field, files: [{ file_uuid: file, ...meta }] }] });

attachedPair(12, (p) => ({ remote, local, remoteId } = p), { template: withChildFile });

describe('files made here reach the server', () => {
  it('uploads a file once, with its bytes, public date and quality; a second sync sends nothing', async () => {
    const bytes = randomBytes(200_000);
    const after = await upload(local.admin, SYNTH.record(1), FILE, bytes, 'notes.bin');
    const mine = originals(after, FILE).find((f) => f.original_name === 'notes.bin')!;
    await setMeta(local.admin, SYNTH.record(1), FILE, mine.file_uuid, { public_date: '2025-03-04 05:06:07', quality: 3 });
    await run();
    const theirs = originals(await remote.client.record(SYNTH.record(1)), FILE).filter((f) => f.original_name === 'notes.bin');
    expect(theirs).toHaveLength(1);
    expect(theirs[0]!.file_uuid).toBe(remoteOf(mine.file_uuid));
    expect(sha(await remoteBytes(theirs[0]!.file_uuid))).toBe(sha(bytes));
    expect(theirs[0]!._file_metadata).toMatchObject({ _public_date: '2025-03-04 05:06:07', _quality: '3' });
    const again = await run();
    expect(again.pushed).toBe(0);
    expect(originals(await remote.client.record(SYNTH.record(1)), FILE).filter((f) => f.original_name === 'notes.bin')).toHaveLength(1);
    // The local copy keeps its own uuid and bytes; nothing came back twice.
    expect(originals(await local.admin.record(SYNTH.record(1)), FILE).filter((f) => f.original_name === 'notes.bin')).toHaveLength(1);
  });

  it('uploads an image without its thumbnail (the server makes its own); display order travels', async () => {
    const png = await sharp({ create: { width: 800, height: 500, channels: 3, background: '#3366aa' } })
      .png()
      .toBuffer();
    const after = await upload(local.admin, SYNTH.record(2), IMAGE, png, 'plate.png');
    const img = originals(after, IMAGE).find((f) => f.original_name === 'plate.png')!;
    await setMeta(local.admin, SYNTH.record(2), IMAGE, img.file_uuid, { display_order: 4 });
    await run();
    const rec = await remote.client.record(SYNTH.record(2));
    const all = rec.fields.find((f) => f.field_uuid === IMAGE)!.files!;
    const orig = all.filter((f) => f.parent_image_id === undefined);
    expect(orig.map((f) => f.original_name)).toEqual(['plate.png']);
    expect(orig[0]!._file_metadata?._display_order).toBe('4');
    // One thumbnail, the server's own (not our local derivative's uuid).
    const thumbs = all.filter((f) => f.parent_image_id === orig[0]!.id);
    expect(thumbs).toHaveLength(1);
    const localThumb =
      originals(after, IMAGE).length &&
      after.fields.find((f) => f.field_uuid === IMAGE)!.files!.find((f) => f.parent_image_id !== undefined)!;
    expect(thumbs[0]!.file_uuid).not.toBe(localThumb && localThumb.file_uuid);
    expect(sha(await remoteBytes(orig[0]!.file_uuid))).toBe(sha(png));
  });

  it('uploads, changes and deletes files on child records too', async () => {
    const child = SYNTH.childRecord(10, 0);
    const bytes = Buffer.from('child attachment\n');
    const after = await upload(local.admin, child, CHILD_FILE, bytes, 'child.txt', SYNTH.child);
    await run();
    const theirs = originals(await remote.client.record(SYNTH.record(10)), CHILD_FILE, child);
    expect(theirs.map((f) => f.original_name)).toEqual(['child.txt']);
    expect(sha(await remoteBytes(theirs[0]!.file_uuid))).toBe(sha(bytes));
    const mine = originals(after, CHILD_FILE, child)[0]!;
    await local.admin.deleteFile(mine.file_uuid);
    await run();
    expect(originals(await remote.client.record(SYNTH.record(10)), CHILD_FILE, child)).toEqual([]);
  });

  it("deletes here what was deleted here, and there what the server deleted; the server's metadata changes come in", async () => {
    await upload(remote.client, SYNTH.record(3), FILE, Buffer.from('one'), 'one.txt');
    await upload(remote.client, SYNTH.record(3), FILE, Buffer.from('two'), 'two.txt');
    await upload(remote.client, SYNTH.record(3), FILE, Buffer.from('three'), 'three.txt');
    await run();
    const listed = originals(await local.admin.record(SYNTH.record(3)), FILE);
    const byName = (n: string) => listed.find((f) => f.original_name === n)!.file_uuid;
    // Bytes fetched here: the record now merges (it holds local-only state).
    expect(
      (await fetch(`${local.api}/file/${byName('one.txt')}`, { headers: { Authorization: `Bearer ${local.admin.token}` } })).status,
    ).toBe(200);
    await local.admin.deleteFile(byName('one.txt'));
    await remote.client.deleteFile(byName('two.txt'));
    await setMeta(remote.client, SYNTH.record(3), FILE, byName('three.txt'), { public_date: PRIVATE, quality: 9 });
    await run();
    const l = originals(await local.admin.record(SYNTH.record(3)), FILE);
    const r = originals(await remote.client.record(SYNTH.record(3)), FILE);
    expect(l.map((f) => f.original_name).filter((n) => n.endsWith('.txt'))).toEqual(['three.txt']);
    expect(r.map((f) => f.original_name).filter((n) => n.endsWith('.txt'))).toEqual(['three.txt']);
    expect(l.find((f) => f.original_name === 'three.txt')!._file_metadata).toMatchObject({ _public_date: PRIVATE, _quality: '9' });
    expect(local.service.sync.conflicts()).toEqual([]);
  });
});

describe('a file deleted on one side and changed on the other', () => {
  it('deleted here, changed on the server: a conflict; "theirs" brings the file back, "mine" deletes it there', async () => {
    for (const choice of ['theirs', 'mine'] as const) {
      const name = `contested-${choice}.txt`;
      await upload(remote.client, SYNTH.record(4), FILE, Buffer.from(name), name);
      await run();
      const uuid = originals(await local.admin.record(SYNTH.record(4)), FILE).find((f) => f.original_name === name)!.file_uuid;
      await local.admin.deleteFile(uuid);
      await setMeta(remote.client, SYNTH.record(4), FILE, uuid, { quality: 7 });
      await run();
      const conflicts = local.service.sync.conflicts();
      expect(conflicts).toHaveLength(1);
      expect(conflicts[0]).toMatchObject({ record_uuid: SYNTH.record(4), field_uuid: FILE, item_uuid: uuid, mine: 'deleted here' });
      expect(conflicts[0]!.theirs).toMatch(/changed on the server .*quality 7/);
      // Nothing lost meanwhile: the server still has it.
      expect(originals(await remote.client.record(SYNTH.record(4)), FILE).map((f) => f.file_uuid)).toContain(uuid);
      expect(() => local.service.sync.resolve(conflicts[0]!.id, 'merged', local.service.domain.users.firstSuperUser()!, 'x')).toThrow(
        /"mine" or "theirs"/,
      );
      local.service.sync.resolve(conflicts[0]!.id, choice, local.service.domain.users.firstSuperUser()!);
      await run();
      const here = originals(await local.admin.record(SYNTH.record(4)), FILE).map((f) => f.file_uuid);
      const there = originals(await remote.client.record(SYNTH.record(4)), FILE).map((f) => f.file_uuid);
      if (choice === 'theirs') {
        expect(here).toContain(uuid);
        expect(there).toContain(uuid);
        const got = await fetch(`${local.api}/file/${uuid}`, { headers: { Authorization: `Bearer ${local.admin.token}` } });
        expect(await got.text()).toBe(name);
      } else {
        expect(here).not.toContain(uuid);
        expect(there).not.toContain(uuid);
      }
      expect(local.service.sync.conflicts()).toEqual([]);
    }
  });

  it('deleted on the server, changed here: a conflict; "mine" uploads it again, "theirs" deletes it here', async () => {
    for (const choice of ['mine', 'theirs'] as const) {
      const name = `kept-${choice}.txt`;
      const after = await upload(local.admin, SYNTH.record(5), FILE, Buffer.from(name), name);
      const uuid = originals(after, FILE).find((f) => f.original_name === name)!.file_uuid;
      await run();
      const r = remoteOf(uuid);
      await remote.client.deleteFile(r);
      await setMeta(local.admin, SYNTH.record(5), FILE, uuid, { quality: 5 });
      await run();
      const conflicts = local.service.sync.conflicts();
      expect(conflicts).toHaveLength(1);
      expect(conflicts[0]).toMatchObject({ item_uuid: uuid, theirs: 'deleted on the server' });
      expect(originals(await local.admin.record(SYNTH.record(5)), FILE).map((f) => f.file_uuid)).toContain(uuid);
      local.service.sync.resolve(conflicts[0]!.id, choice, local.service.domain.users.firstSuperUser()!);
      await run();
      const there = originals(await remote.client.record(SYNTH.record(5)), FILE).filter((f) => f.original_name === name);
      const here = originals(await local.admin.record(SYNTH.record(5)), FILE).filter((f) => f.original_name === name);
      if (choice === 'mine') {
        expect(there).toHaveLength(1);
        expect(there[0]!.file_uuid).not.toBe(r);
        expect(there[0]!._file_metadata?._quality).toBe('5');
        expect(here.map((f) => f.file_uuid)).toEqual([uuid]);
      } else {
        expect(there).toEqual([]);
        expect(here).toEqual([]);
      }
      expect(local.service.sync.conflicts()).toEqual([]);
    }
  });
});

describe('file metadata changed on both sides', () => {
  it('is a conflict, never a silent overwrite; "mine" sends ours, "theirs" takes the server\'s', async () => {
    for (const choice of ['mine', 'theirs'] as const) {
      const name = `meta-${choice}.txt`;
      const after = await upload(local.admin, SYNTH.record(6), FILE, Buffer.from(name), name);
      const uuid = originals(after, FILE).find((f) => f.original_name === name)!.file_uuid;
      await run();
      const r = remoteOf(uuid);
      await setMeta(remote.client, SYNTH.record(6), FILE, r, { quality: 3, public_date: '2030-01-02 03:04:05' });
      await setMeta(local.admin, SYNTH.record(6), FILE, uuid, { quality: 7 });
      await run();
      const conflicts = local.service.sync.conflicts();
      expect(conflicts).toHaveLength(1);
      expect(conflicts[0]).toMatchObject({ item_uuid: uuid });
      expect(conflicts[0]!.mine).toContain('quality 7');
      expect(conflicts[0]!.theirs).toContain('quality 3');
      // Nothing overwritten on either side while the person has not chosen.
      const meta = async (c: TestService['admin'], u: string) =>
        originals(await c.record(SYNTH.record(6)), FILE).find((f) => f.file_uuid === u)!._file_metadata?._quality;
      expect(await meta(remote.client, r)).toBe('3');
      expect(await meta(local.admin, uuid)).toBe('7');
      local.service.sync.resolve(conflicts[0]!.id, choice, local.service.domain.users.firstSuperUser()!);
      await run();
      const want = choice === 'mine' ? '7' : '3';
      expect(await meta(remote.client, r)).toBe(want);
      expect(await meta(local.admin, uuid)).toBe(want);
      expect(local.service.sync.conflicts()).toEqual([]);
      const again = await run();
      expect(again.pushed).toBe(0);
    }
  });
});

describe('a file metadata edit made while its conflict is open', () => {
  it('waits with the conflict (never sent unchecked); "theirs" then leaves both sides equal, "mine" sends the latest', async () => {
    for (const choice of ['theirs', 'mine'] as const) {
      const name = `meta-open-${choice}.txt`;
      const after = await upload(local.admin, SYNTH.record(6), FILE, Buffer.from(name), name);
      const uuid = originals(after, FILE).find((f) => f.original_name === name)!.file_uuid;
      await run();
      const r = remoteOf(uuid);
      await setMeta(remote.client, SYNTH.record(6), FILE, r, { quality: 3 });
      await setMeta(local.admin, SYNTH.record(6), FILE, uuid, { quality: 7 });
      await run();
      expect(local.service.sync.conflicts()).toHaveLength(1);
      await setMeta(local.admin, SYNTH.record(6), FILE, uuid, { quality: 8 });
      await run();
      const meta = async (c: TestService['admin'], u: string) =>
        originals(await c.record(SYNTH.record(6)), FILE).find((f) => f.file_uuid === u)!._file_metadata?._quality;
      expect(await meta(remote.client, r)).toBe('3');
      const conflicts = local.service.sync.conflicts();
      expect(conflicts).toHaveLength(1);
      local.service.sync.resolve(conflicts[0]!.id, choice, local.service.domain.users.firstSuperUser()!);
      await run();
      const want = choice === 'mine' ? '8' : '3';
      expect([await meta(remote.client, r), await meta(local.admin, uuid)]).toEqual([want, want]);
      expect(local.service.sync.conflicts()).toEqual([]);
    }
  });
});

describe('exactly once', () => {
  it('after an upload whose answer was lost, finds the file on the server instead of sending it again', async () => {
    const bytes = randomBytes(1234);
    const after = await upload(local.admin, SYNTH.record(6), FILE, bytes, 'lost-answer.bin');
    const uuid = originals(after, FILE).find((f) => f.original_name === 'lost-answer.bin')!.file_uuid;
    const db = local.service.ctx.db;
    // As after a crash between sending and reading the answer: the attempt is on record, the
    // operation still pending, and the server has the file.
    const before = originals(await remote.client.record(SYNTH.record(6)), FILE).map((f) => f.file_uuid);
    local.service.sync.status(); // collects the outbox
    db.prepare(
      `INSERT INTO sync_file_map (local_uuid, remote_id, remote_uuid, state, attempted_at, known_before) VALUES (?, ?, NULL, 'uploading', ?, ?)`,
    ).run(uuid, remoteId, new Date().toISOString(), JSON.stringify(before));
    await upload(remote.client, SYNTH.record(6), FILE, bytes, 'lost-answer.bin');
    await run();
    const there = originals(await remote.client.record(SYNTH.record(6)), FILE).filter((f) => f.original_name === 'lost-answer.bin');
    expect(there).toHaveLength(1);
    expect(remoteOf(uuid)).toBe(there[0]!.file_uuid);
  });
});
