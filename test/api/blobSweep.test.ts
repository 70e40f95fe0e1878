import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BlobStore, SWEEP_FRESH_MS } from '../../electron/service/domain/files/blobStore.js';
import { deleteFile } from '../../electron/service/domain/files/fileOps.js';
import { tx } from '../../electron/service/domain/tx.js';
import { SYNTH } from '../../bench/synthetic.js';
import { runCli } from '../support/processes.js';
import { startService, startSyntheticService, type TestService } from '../support/service.js';

// Bytes whose removal was deferred until their delete's commit was durable were dropped when the
// service closed first, and nothing removed them afterwards: every such file leaked its bytes.
// The sweep that removes such leftovers then listed and checked the whole store at every start
// (each hash twice), though after a clean close there are none.

const FILE = SYNTH.field('File');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function uploaded(t: TestService, i: number, text: string) {
  await t.admin.uploadFile(
    { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(i), field_uuid: FILE },
    { blob: new Blob([text], { type: 'text/plain' }), name: `sweep${i}.txt` },
  );
  return t.service.ctx.db.prepare('SELECT uuid, content_hash AS hash FROM files WHERE original_name = ?').get(`sweep${i}.txt`) as {
    uuid: string;
    hash: string;
  };
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const past = (ms: number) => new Date(Date.now() - ms);

const blobPath = (dataDir: string, h: string) => path.join(dataDir, 'files', h.slice(0, 2), h.slice(2, 4), h);

/** Bytes no row names, as a crash leaves them; `age`: how long ago they were written. */
function looseBytes(dataDir: string, text: string, age = 2 * SWEEP_FRESH_MS): string {
  const h = sha(text);
  mkdirSync(path.dirname(blobPath(dataDir, h)), { recursive: true });
  writeFileSync(blobPath(dataDir, h), text);
  utimesSync(blobPath(dataDir, h), past(age), past(age));
  return h;
}

/** How many content-named blobs the store holds. */
const blobCount = (dataDir: string) =>
  readdirSync(path.join(dataDir, 'files'), { recursive: true, encoding: 'utf8' }).filter((p) => /^[0-9a-f]{64}$/.test(path.basename(p)))
    .length;

/** A run of the service in its own process on `dataDir`, ended by kill -9 (a crash). */
async function crashedRun(dataDir: string) {
  const proc = runCli(['serve', '--port', '0', '--data', dataDir, '--no-auto-login']);
  await proc.waitFor(/listening on (http:\/\/\S+)/);
  proc.child.kill('SIGKILL');
  expect((await proc.exited).signal).toBe('SIGKILL');
}

describe('file bytes nothing references', () => {
  let dataDir = '';
  let kept: { uuid: string; hash: string };
  let trashed: { uuid: string; hash: string };

  it('are removed by close when their removal is pending; after that clean close the next start does not walk the store', async () => {
    const first = await startSyntheticService(5, { keepDir: true, liveSync: false });
    dataDir = first.dataDir;
    dirs.push(dataDir);
    await first.service.blobSweep;
    const blobs = new BlobStore(first.service.ctx);
    kept = await uploaded(first, 1, 'bytes of a file that stays');
    trashed = await uploaded(first, 2, 'bytes of a file under a deleted (restorable) record');
    const removed = await uploaded(first, 3, 'bytes of a file deleted just before close');
    await first.admin.deleteRecords([SYNTH.record(2)]);
    // A delete inside a transaction (as a sync pull's): its bytes wait for the commit to be durable.
    const d = first.service.domain;
    tx(first.service.ctx, () => {
      const outcome = deleteFile(d, d.users.firstSuperUser()!, removed.uuid);
      expect(blobs.removeUnreferenced(outcome.orphanCandidates)).toBe(0);
    });
    expect(existsSync(blobs.pathOf(removed.hash))).toBe(true);
    await first.close();
    expect(existsSync(blobs.pathOf(removed.hash))).toBe(false);

    // Put there behind the closed service's back: a clean close vouches for the store, so the
    // start leaves them (and looks nothing up). A staged upload of an earlier run goes anyway.
    const planted = looseBytes(dataDir, 'bytes planted after a clean close');
    const staged = blobs.tmpPath('upload-of-an-earlier-run');
    writeFileSync(staged, 'half an upload');
    utimesSync(staged, past(60_000), past(60_000));
    const again = await startService({ dataDir, keepDir: true, liveSync: false });
    try {
      const now = new BlobStore(again.service.ctx);
      const fresh = now.tmpPath('upload-of-this-run');
      writeFileSync(fresh, 'an upload under way');
      expect(await again.service.blobSweep).toBe(1);
      expect(now.checkedCount, 'no hash looked up at a start after a clean close').toBe(0);
      expect(existsSync(staged)).toBe(false);
      expect(existsSync(fresh)).toBe(true);
      rmSync(fresh);
      expect(existsSync(blobPath(dataDir, planted))).toBe(true);
    } finally {
      await again.close();
    }
    rmSync(blobPath(dataDir, planted));
  });

  it('after a crash the start sweeps, each stored hash looked up once; bytes written in the last minutes stay until a later start', async () => {
    expect(dataDir, 'needs the data dir of the test before').not.toBe('');
    await crashedRun(dataDir);
    const old = looseBytes(dataDir, 'bytes a crashed run left behind');
    const young = looseBytes(dataDir, 'bytes of an upload under way', 1000);
    const notAHash = path.join(dataDir, 'files', 'ab', 'cd', 'notes.txt');
    mkdirSync(path.dirname(notAHash), { recursive: true });
    writeFileSync(notAHash, 'not ours to judge');
    const stored = blobCount(dataDir);

    const second = await startService({ dataDir, keepDir: true, liveSync: false });
    try {
      const blobs = new BlobStore(second.service.ctx);
      expect(await second.service.blobSweep).toBe(1);
      // Once each, and the one removed once more after the WAL sync (a writer may take it meanwhile).
      expect(blobs.checkedCount).toBe(stored + 1);
      expect(existsSync(blobPath(dataDir, old))).toBe(false);
      expect(existsSync(blobPath(dataDir, young)), 'written a second ago: an upload in progress').toBe(true);
      expect(existsSync(notAHash)).toBe(true);
      // Referenced bytes stay: a file's, and a deleted record's (it can be restored with them).
      expect(existsSync(blobPath(dataDir, kept.hash))).toBe(true);
      expect(existsSync(blobPath(dataDir, trashed.hash))).toBe(true);
      expect(await (await second.admin.send('GET', `/file/${kept.uuid}`)).text()).toBe('bytes of a file that stays');
    } finally {
      await second.close();
    }

    // The bytes it kept for their age make that close unclean: the next start sweeps again.
    utimesSync(blobPath(dataDir, young), past(2 * SWEEP_FRESH_MS), past(2 * SWEEP_FRESH_MS));
    const third = await startService({ dataDir, keepDir: true, liveSync: false });
    try {
      expect(await third.service.blobSweep).toBe(1);
      expect(existsSync(blobPath(dataDir, young))).toBe(false);
      expect(existsSync(blobPath(dataDir, kept.hash))).toBe(true);
    } finally {
      await third.close();
    }
  });

  it('a sweep leaves bytes a writer holds (their row not committed yet), and removes them once let go', async () => {
    expect(dataDir, 'needs the data dir of the tests before').not.toBe('');
    const t = await startService({ dataDir, keepDir: true, liveSync: false });
    try {
      await t.service.blobSweep;
      const blobs = new BlobStore(t.service.ctx);
      const held = looseBytes(dataDir, 'bytes of an upload whose row is about to commit');
      const loose = looseBytes(dataDir, 'bytes nobody holds');
      blobs.hold(held);
      expect(await blobs.sweep(Date.now())).toBe(1);
      expect(existsSync(blobPath(dataDir, held))).toBe(true);
      expect(existsSync(blobPath(dataDir, loose))).toBe(false);
      blobs.release([held]);
      expect(await blobs.sweep(Date.now())).toBe(1);
      expect(existsSync(blobPath(dataDir, held))).toBe(false);
      expect(existsSync(blobPath(dataDir, kept.hash))).toBe(true);
    } finally {
      await t.close();
    }
  });
});

describe('two runs on one data dir (the CLI beside the app)', () => {
  it("a run that closes with bytes left behind takes the mark the other run's clean close set: the next start sweeps", async () => {
    const app = await startService({ keepDir: true, liveSync: false });
    dirs.push(app.dataDir);
    let closed = false;
    try {
      await app.service.blobSweep;
      // A writer still holding bytes at close: the app's run cannot vouch for the store.
      const held = sha('bytes a writer of the app run still holds');
      new BlobStore(app.service.ctx).hold(held);
      const cli = await startService({ dataDir: app.dataDir, keepDir: true, liveSync: false });
      await cli.service.blobSweep;
      await cli.close();
      // What the app's run leaves behind, after the CLI's clean close set the mark.
      const left = looseBytes(app.dataDir, 'bytes the app run leaves behind');
      await app.close();
      closed = true;
      const next = await startService({ dataDir: app.dataDir, keepDir: true, liveSync: false });
      try {
        expect(await next.service.blobSweep).toBe(1);
        expect(existsSync(blobPath(app.dataDir, left)), "swept: the CLI's mark did not vouch for the app's leftovers").toBe(false);
      } finally {
        await next.close();
      }
    } finally {
      if (!closed) await app.close();
    }
  });
});
