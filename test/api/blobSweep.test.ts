import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BlobStore } from '../../electron/service/domain/files/blobStore.js';
import { deleteFile } from '../../electron/service/domain/files/fileOps.js';
import { tx } from '../../electron/service/domain/tx.js';
import { SYNTH } from '../../bench/synthetic.js';
import { startService, startSyntheticService, type TestService } from '../support/service.js';

// Bytes whose removal was deferred until their delete's commit was durable were dropped when the
// service closed first, and nothing removed them afterwards: every such file leaked its bytes.

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

describe('file bytes nothing references', () => {
  it('are removed by close when their removal is pending, and by the start-up sweep when left over', async () => {
    const first = await startSyntheticService(5, { keepDir: true, liveSync: false });
    dirs.push(first.dataDir);
    await first.service.blobSweep;
    const blobs = new BlobStore(first.service.ctx);
    const kept = await uploaded(first, 1, 'bytes of a file that stays');
    const trashed = await uploaded(first, 2, 'bytes of a file under a deleted (restorable) record');
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

    // What a crash (or a failed removal) leaves: bytes no row names, a staged upload of that run.
    const orphan = sha('bytes a crashed run left behind');
    mkdirSync(blobs.dirOf(orphan), { recursive: true });
    writeFileSync(blobs.pathOf(orphan), 'bytes a crashed run left behind');
    const staged = blobs.tmpPath('upload-of-a-crashed-run');
    writeFileSync(staged, 'half an upload');
    const past = new Date(Date.now() - 60_000);
    utimesSync(staged, past, past);
    const notAHash = path.join(blobs.root, 'ab', 'cd', 'notes.txt');
    mkdirSync(path.dirname(notAHash), { recursive: true });
    writeFileSync(notAHash, 'not ours to judge');

    const again = await startService({ dataDir: first.dataDir, keepDir: true, liveSync: false });
    try {
      const now = new BlobStore(again.service.ctx);
      const fresh = now.tmpPath('upload-of-this-run');
      writeFileSync(fresh, 'an upload under way');
      expect(await again.service.blobSweep).toBe(2);
      expect(existsSync(now.pathOf(orphan))).toBe(false);
      expect(existsSync(staged)).toBe(false);
      expect(existsSync(fresh)).toBe(true);
      expect(existsSync(notAHash)).toBe(true);
      // Referenced bytes stay: a file's, and a deleted record's (it can be restored with them).
      expect(existsSync(now.pathOf(kept.hash))).toBe(true);
      expect(existsSync(now.pathOf(trashed.hash))).toBe(true);
      const res = await again.admin.send('GET', `/file/${kept.uuid}`);
      expect(await res.text()).toBe('bytes of a file that stays');
    } finally {
      await again.close();
    }
  });
});
