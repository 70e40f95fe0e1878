import Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { KeepFilesOfflineAnswer } from '../../shared/schemas/sync.js';
import { FileFetcher } from '../../electron/service/sync/filePull.js';
import { RemoteClient } from '../../electron/service/sync/remoteClient.js';
import type { TestService } from '../support/service.js';
import { attachedPair, type RemoteProc } from './support.js';

// Files only on the server: fetched on first use through the local GET /file, checked, kept;
// thumbnails made here; clear errors; a dataset kept offline downloads everything as a job.

const FILE = SYNTH.field('File');
const IMAGE = SYNTH.field('Image');
let remote: RemoteProc;
let local: TestService;
let remoteId: number;

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const filesOf = (r: OdrRecord, f: string) => r.fields.find((x) => x.field_uuid === f)?.files ?? [];
const run = () => local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
const localGet = (uuid: string) => fetch(`${local.api}/file/${uuid}`, { headers: { Authorization: `Bearer ${local.admin.token}` } });
const rowOf = (uuid: string) =>
  local.service.ctx.db.prepare('SELECT content_hash, file_size, width, height FROM files WHERE uuid = ?').get(uuid) as
    { content_hash: string | null; file_size: number | null; width: number | null; height: number | null } | undefined;

const csv = randomBytes(300_000);
const viewerBytes = randomBytes(50_000);
let png: Buffer;

/** A file uploaded on the server to a record which, as on the real server, stays unmodified. */
async function quietUpload(rec: string, name: string): Promise<void> {
  const db = new Database(path.join(remote.dataDir, 'odr.sqlite'));
  try {
    const before = db.prepare('SELECT update_date FROM records WHERE uuid = ?').pluck().get(rec) as string;
    await remote.client.uploadFile(
      { dataset_uuid: SYNTH.dataset, record_uuid: rec, field_uuid: FILE, template_field_uuid: '' },
      { blob: new Blob([Buffer.from(name)]), name },
    );
    db.prepare('UPDATE records SET update_date = ? WHERE uuid = ?').run(before, rec);
  } finally {
    db.close();
  }
}

// The files are on the remote before the first sync (which throws on an error).
attachedPair(12, (p) => ({ remote, local, remoteId } = p), {
  beforeGate: async (r) => {
    png = await sharp({ create: { width: 900, height: 600, channels: 3, background: { r: 200, g: 40, b: 90 } } })
      .png()
      .toBuffer();
    await r.client.uploadFile(
      { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(1), field_uuid: FILE, template_field_uuid: '' },
      { blob: new Blob([csv]), name: 'data.bin' },
    );
    await r.client.uploadFile(
      { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(2), field_uuid: IMAGE, template_field_uuid: '' },
      { blob: new Blob([png]), name: 'photo.png' },
    );
    await r.client.uploadFile(
      { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(3), field_uuid: FILE, template_field_uuid: '' },
      { blob: new Blob([Buffer.from('a,b\n1,2\n')]), name: 'small.csv' },
    );
    await r.client.uploadFile(
      { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(4), field_uuid: FILE, template_field_uuid: '' },
      { blob: new Blob([viewerBytes]), name: 'for-viewers.bin' },
    );
  },
});

describe('files only on the server', () => {
  it('are listed as not here, and a local GET /file fetches, checks and keeps their bytes', async () => {
    const mine = filesOf(await local.admin.record(SYNTH.record(1)), FILE);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.content_local).toBe(false);
    const uuid = mine[0]!.file_uuid;
    expect(rowOf(uuid)!.content_hash).toBeNull();

    const res = await localGet(uuid);
    expect(res.status).toBe(200);
    expect(sha(new Uint8Array(await res.arrayBuffer()))).toBe(sha(csv));
    expect(res.headers.get('content-disposition')).toContain('data.bin');
    expect(rowOf(uuid)!.content_hash).toBe(sha(csv));
    expect(filesOf(await local.admin.record(SYNTH.record(1)), FILE)[0]!.content_local).toBeUndefined();

    // Now served from here: the remote may be gone.
    const again = await localGet(uuid);
    expect(sha(new Uint8Array(await again.arrayBuffer()))).toBe(sha(csv));
  });

  it('answers concurrent first uses with one download', async () => {
    const uuid = filesOf(await local.admin.record(SYNTH.record(3)), FILE)[0]!.file_uuid;
    const got = await Promise.all([1, 2, 3, 4].map(() => localGet(uuid).then(async (r) => [r.status, await r.text()] as const)));
    expect(got.map((g) => g[0])).toEqual([200, 200, 200, 200]);
    expect(new Set(got.map((g) => g[1]))).toEqual(new Set(['a,b\n1,2\n']));
  });

  it('opens a server-only image through its thumbnail too: the original is fetched, the thumbnail made here', async () => {
    const entries = filesOf(await local.admin.record(SYNTH.record(2)), IMAGE);
    const original = entries.find((e) => e.parent_image_id === undefined)!;
    const thumb = entries.find((e) => e.parent_image_id !== undefined)!;
    expect(original.content_local).toBe(false);
    const res = await localGet(thumb.file_uuid);
    expect(res.status).toBe(200);
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect(meta.width).toBeLessThanOrEqual(500);
    expect(meta.height).toBeLessThanOrEqual(375);
    expect(rowOf(original.file_uuid)!.content_hash).not.toBeNull();
    expect(rowOf(original.file_uuid)!.width).toBe(900);
    const full = await localGet(original.file_uuid);
    expect((await sharp(Buffer.from(await full.arrayBuffer())).metadata()).width).toBe(900);
  });

  it('opens from the server for every user who may see the file, not only super-users; sync administration stays theirs', async () => {
    const d = local.service.domain;
    const viewer = await d.users.create({ email: 'viewer@test.local', password: 'viewer-password-1' });
    const dt = d.schema().datatypesByUuid.get(SYNTH.dataset)!;
    d.users.setRole(viewer.id, dt.id, 'view', d.users.firstSuperUser()!.id);
    const token = (await local.loginAs('viewer@test.local', 'viewer-password-1')).token!;
    const as = (path: string) => fetch(`${local.host.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });

    const synced = (await (await as('/local/synced-datasets')).json()) as { datasets: string[] };
    const expected = d
      .schema()
      .subtreeIds(dt)
      .map((id) => d.schema().datatypes.get(id)!.uuid);
    expect(expected.length).toBeGreaterThan(1); // child datasets too
    expect(synced.datasets.sort()).toEqual(expected.sort());
    expect((await as('/local/sync')).status).toBe(403);
    // A user who may not see the dataset (made non-public for the check) is told none of it,
    // its child datasets included.
    await d.users.create({ email: 'outsider@test.local', password: 'outsider-password-1' });
    const outsider = (await local.loginAs('outsider@test.local', 'outsider-password-1')).token!;
    const listedFor = async (tok: string) =>
      (
        (await (await fetch(`${local.host.url}/local/synced-datasets`, { headers: { Authorization: `Bearer ${tok}` } })).json()) as {
          datasets: string[];
        }
      ).datasets;
    const wasPublic = dt.publicDate;
    const setPublic = (date: string) => {
      local.service.ctx.db.prepare('UPDATE datatypes SET public_date = ? WHERE id = ?').run(date, dt.id);
      local.service.ctx.schema.changed();
    };
    try {
      setPublic('2200-01-01 00:00:00');
      expect(await listedFor(outsider)).toEqual([]);
      expect((await listedFor(token)).sort()).toEqual(expected.sort());
    } finally {
      setPublic(wasPublic);
    }

    const uuid = filesOf(await local.admin.record(SYNTH.record(4)), FILE).find((f) => f.original_name === 'for-viewers.bin')!.file_uuid;
    expect(rowOf(uuid)!.content_hash).toBeNull();
    const res = await as(`/api/v4/file/${uuid}`);
    expect(res.status).toBe(200);
    expect(sha(new Uint8Array(await res.arrayBuffer()))).toBe(sha(viewerBytes));
  });

  it('notices a file uploaded on the server to a record whose values did not change (no "modified" entry): the periodic sweep', async () => {
    const rec = SYNTH.record(5);
    await quietUpload(rec, 'quiet.txt');
    const listed = async () => filesOf(await local.admin.record(rec), FILE).some((f) => f.original_name === 'quiet.txt');
    const saved = process.env.ODR_SYNC_SWEEP_SECONDS;
    try {
      process.env.ODR_SYNC_SWEEP_SECONDS = '86400';
      expect((await run()).error).toBeUndefined();
      expect(await listed()).toBe(false); // the modified listing does not name it
      process.env.ODR_SYNC_SWEEP_SECONDS = '0';
      expect((await run()).error).toBeUndefined();
      expect(await listed()).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.ODR_SYNC_SWEEP_SECONDS;
      else process.env.ODR_SYNC_SWEEP_SECONDS = saved;
    }
  });

  it('a sweep starts counting (not sweeping) when its time is missing, and re-reads a capped number of records per pull', async () => {
    const ids = (await remote.client.request<{ records: OdrRecord[] }>('GET', `/dataset/${SYNTH.dataset}/1000/0`)).records
      .map((r) => r.record_uuid)
      .sort();
    const rec = ids.at(-1)!;
    await quietUpload(rec, 'capped.txt');
    const listed = async () => filesOf(await local.admin.record(rec), FILE).some((f) => f.original_name === 'capped.txt');
    // As a dataset pulled by a build that kept no sweep time.
    const db = new Database(path.join(local.dataDir, 'odr.sqlite'));
    db.prepare("DELETE FROM meta WHERE key LIKE 'sync_sweep:%'").run();
    db.close();
    const saved = [process.env.ODR_SYNC_SWEEP_SECONDS, process.env.ODR_SYNC_SWEEP_PER_PULL];
    try {
      process.env.ODR_SYNC_SWEEP_SECONDS = '0';
      process.env.ODR_SYNC_SWEEP_PER_PULL = '2';
      expect((await run()).error).toBeUndefined();
      expect(await listed()).toBe(false); // the time was set, nothing swept
      const pulls = Math.ceil(ids.length / 2);
      for (let i = 1; i <= pulls; i++) {
        expect((await run()).error).toBeUndefined();
        expect(await listed()).toBe(i === pulls); // two records a pull, in uuid order: the last one last
      }
    } finally {
      const keys = ['ODR_SYNC_SWEEP_SECONDS', 'ODR_SYNC_SWEEP_PER_PULL'] as const;
      keys.forEach((k, i) => (saved[i] === undefined ? delete process.env[k] : (process.env[k] = saved[i])));
    }
  });

  it("answers a file the server cannot give with an error naming the server's answer, and keeps nothing", async () => {
    // Synthetic records list files whose bytes the remote does not have either.
    const missing = filesOf(await local.admin.record(SYNTH.record(5)), FILE)[0]!;
    const res = await localGet(missing.file_uuid);
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(502);
    expect(body.error.message).toMatch(/the server answered 404/);
    expect(body.error.message).toContain(remote.url);
    expect(rowOf(missing.file_uuid)!.content_hash).toBeNull();
  });

  it('refuses bytes whose size differs from what the server lists', async () => {
    await remote.client.uploadFile(
      { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(4), field_uuid: FILE, template_field_uuid: '' },
      { blob: new Blob([Buffer.alloc(5000, 7)]), name: 'sized.bin' },
    );
    await run();
    const entry = filesOf(await local.admin.record(SYNTH.record(4)), FILE).find((f) => f.original_name === 'sized.bin')!;
    // The listing says one size; the server then sends another (as a truncating proxy would).
    local.service.ctx.db.prepare('UPDATE files SET file_size = 5001 WHERE uuid = ?').run(entry.file_uuid);
    const res = await localGet(entry.file_uuid);
    expect(res.status).toBe(502);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/sent 5000 bytes but lists the file as 5001/);
    expect(rowOf(entry.file_uuid)!.content_hash).toBeNull();
    local.service.ctx.db.prepare('UPDATE files SET file_size = 5000 WHERE uuid = ?').run(entry.file_uuid);
    expect((await localGet(entry.file_uuid)).status).toBe(200);
  });

  it('gives up a download whose body stops moving (the stall limit) and keeps nothing', async () => {
    await remote.client.uploadFile(
      { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(5), field_uuid: FILE, template_field_uuid: '' },
      { blob: new Blob([randomBytes(5000)]), name: 'stalls.bin' },
    );
    await run();
    const file = local.service.sync.files.missing(SYNTH.dataset).find((f) => f.original_name === 'stalls.bin')!;
    // A server that answers the login, then sends the file's headers and a fifth of its bytes.
    const stalling = createServer((req, res) => {
      if (req.method === 'POST') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"token":"t"}');
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '5000' });
      res.write(Buffer.alloc(1000));
    });
    await new Promise<void>((r) => stalling.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}/api/v4`;
    const tmpDir = path.dirname(local.service.sync.blobs.tmpPath('x'));
    const tmpBefore = readdirSync(tmpDir).length;
    process.env.ODR_FILE_STALL_SECONDS = '0.3';
    try {
      const fetcher = new FileFetcher(local.service.domain, local.service.sync.blobs, () => new RemoteClient(url, 'u', 'p'));
      const t0 = performance.now();
      await expect(fetcher.ensure(file)).rejects.toThrow(/download broke off \(no bytes for 0.3 s\); nothing was kept/);
      expect(performance.now() - t0).toBeLessThan(10_000);
    } finally {
      delete process.env.ODR_FILE_STALL_SECONDS;
      stalling.closeAllConnections();
      stalling.close();
    }
    expect(rowOf(file.uuid)!.content_hash).toBeNull();
    expect(readdirSync(tmpDir).length).toBe(tmpBefore);
    // The next use fetches it from the real server.
    expect((await localGet(file.uuid)).status).toBe(200);
  });

  it('keeps a dataset offline: every missing file downloads as a tracked job with progress; refused ones are listed', async () => {
    await remote.client.uploadFile(
      { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(6), field_uuid: FILE, template_field_uuid: '' },
      { blob: new Blob([randomBytes(70_000)]), name: 'later.bin' },
    );
    await run();
    const localUrl = local.api.replace(/\/api\/v4$/, '/local/sync/files-offline');
    const put = (body: unknown) =>
      fetch(localUrl, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${local.admin.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const bad = await put({ remote_id: remoteId, dataset_uuid: 'nope', keep: true });
    expect(bad.status).toBe(404);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/Synced dataset/);
    expect((await put({ remote_id: remoteId, keep: true })).status).toBe(400);

    const missingBefore = local.service.sync.files.missing(SYNTH.dataset).length;
    const res = await put({ remote_id: remoteId, dataset_uuid: SYNTH.dataset, keep: true });
    expect(res.status).toBe(200);
    const answer = KeepFilesOfflineAnswer.parse(await res.json());
    expect(answer.missing).toBe(missingBefore);
    expect(answer.job_id).not.toBeNull();
    const jobs = local.service.domain.jobs;
    const admin = local.service.domain.users.firstSuperUser()!;
    let job = jobs.get(admin, answer.job_id!);
    for (let i = 0; i < 200 && job.state === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      job = jobs.get(admin, answer.job_id!);
    }
    expect(job.state).toBe('complete');
    expect([job.current, job.total]).toEqual([missingBefore, missingBefore]);
    const result = job.additional_data as { downloaded: number; failed: { file_uuid: string; error: string }[] };
    // Only the synthetic files the server has no bytes for are left, each with why.
    const left = local.service.sync.files.missing(SYNTH.dataset);
    expect(result.failed.map((f) => f.file_uuid).sort()).toEqual(left.map((f) => f.uuid).sort());
    expect(left.every((f) => f.original_name.startsWith('spectrum-'))).toBe(true);
    expect(result.failed[0]!.error).toMatch(/answered 404/);
    expect(result.downloaded).toBe(missingBefore - left.length);
    const status = local.service.sync.status();
    expect(status.datasets.find((d) => d.dataset_uuid === SYNTH.dataset)!.keep_files_offline).toBe(true);
  });

  it('answers 503 naming the remote when it cannot be reached', async () => {
    await remote.client.uploadFile(
      { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(7), field_uuid: FILE, template_field_uuid: '' },
      { blob: new Blob([Buffer.from('offline')]), name: 'off.txt' },
    );
    await local.service.sync.keepFilesOffline(remoteId, SYNTH.dataset, false, local.service.domain.users.firstSuperUser()!);
    await run();
    const entry = filesOf(await local.admin.record(SYNTH.record(7)), FILE).find((f) => f.original_name === 'off.txt')!;
    await remote.halt();
    try {
      const res = await localGet(entry.file_uuid);
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/did not answer/);
    } finally {
      await remote.restart();
    }
    expect((await localGet(entry.file_uuid)).status).toBe(200);
  });
});
