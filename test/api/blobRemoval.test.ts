import { existsSync } from 'node:fs';
import { setImmediate as tick } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobStore } from '../../electron/service/domain/files/blobStore.js';
import { deleteFile } from '../../electron/service/domain/files/fileOps.js';
import { tx } from '../../electron/service/domain/tx.js';
import { SYNTH } from '../../bench/synthetic.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// File bytes are deleted only once no committed row references them. A sync pull deletes files
// inside its own transaction; deleting their bytes there, before the commit, lost them for good
// when that transaction rolled back.

const FILE = SYNTH.field('File');
let t: TestService;

beforeAll(async () => {
  t = await startSyntheticService(5);
});
afterAll(() => t.close());

async function uploaded(i: number, text: string) {
  await t.admin.uploadFile(
    { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(i), field_uuid: FILE },
    { blob: new Blob([text], { type: 'text/plain' }), name: `blob${i}.txt` },
  );
  return t.service.ctx.db.prepare('SELECT uuid, content_hash AS hash FROM files WHERE original_name = ?').get(`blob${i}.txt`) as {
    uuid: string;
    hash: string;
  };
}

const d = () => t.service.domain;
const blobs = () => new BlobStore(t.service.ctx);

describe('removing unreferenced bytes inside a transaction', () => {
  it('keeps the bytes when the transaction that deleted the file rolls back', async () => {
    const file = await uploaded(1, 'bytes of a file whose delete is rolled back');
    expect(() =>
      tx(t.service.ctx, () => {
        const outcome = deleteFile(d(), d().users.firstSuperUser()!, file.uuid);
        expect(outcome.orphanCandidates).toContain(file.hash);
        blobs().removeUnreferenced(outcome.orphanCandidates);
        throw new Error('the pull failed after its file deletes');
      }),
    ).toThrow('the pull failed');
    await tick();
    await tick();
    expect(existsSync(blobs().pathOf(file.hash))).toBe(true);
    const res = await t.admin.send('GET', `/file/${file.uuid}`);
    expect(await res.text()).toBe('bytes of a file whose delete is rolled back');
  });

  it('removes the bytes once the transaction that deleted the file has committed', async () => {
    const file = await uploaded(2, 'bytes of a file deleted for good');
    tx(t.service.ctx, () => {
      const outcome = deleteFile(d(), d().users.firstSuperUser()!, file.uuid);
      expect(blobs().removeUnreferenced(outcome.orphanCandidates)).toBe(0);
      // Still there inside the transaction: the commit may yet fail.
      expect(existsSync(blobs().pathOf(file.hash))).toBe(true);
    });
    // Deferred: the WAL is synced first (that delete's commit may not be durable yet).
    const syncs = blobs().walSyncCount;
    await blobs().settled();
    expect(existsSync(blobs().pathOf(file.hash))).toBe(false);
    expect(blobs().walSyncCount).toBe(syncs + 1);
  });

  it('removes them at once outside a transaction', async () => {
    const file = await uploaded(3, 'bytes of a file deleted outside a transaction');
    const outcome = tx(t.service.ctx, () => deleteFile(d(), d().users.firstSuperUser()!, file.uuid));
    const syncs = blobs().walSyncCount;
    expect(blobs().removeUnreferenced(outcome.orphanCandidates)).toBe(1);
    expect(existsSync(blobs().pathOf(file.hash))).toBe(false);
    // That commit was durable (synchronous=FULL): no WAL sync of its own.
    expect(blobs().walSyncCount).toBe(syncs);
  });

  it('skips the WAL sync when every deferred hash is still referenced', async () => {
    const file = await uploaded(4, 'bytes of a file that stays');
    const syncs = blobs().walSyncCount;
    tx(t.service.ctx, () => blobs().removeUnreferenced([file.hash]));
    await blobs().settled();
    expect(blobs().walSyncCount).toBe(syncs);
    expect(existsSync(blobs().pathOf(file.hash))).toBe(true);
  });
});

describe('bytes stored for a row not committed yet', () => {
  it('are held for the whole service: a removal through another BlobStore skips them until released', async () => {
    const file = await uploaded(3, 'bytes held through one store, removed through another');
    const outcome = tx(t.service.ctx, () => deleteFile(d(), d().users.firstSuperUser()!, file.uuid));
    const writer = blobs();
    writer.hold(file.hash);
    writer.hold(file.hash);
    expect(blobs().removeUnreferenced(outcome.orphanCandidates)).toBe(0);
    writer.release([file.hash]);
    expect(blobs().removeUnreferenced(outcome.orphanCandidates)).toBe(0);
    writer.release([file.hash]);
    expect(blobs().removeUnreferenced(outcome.orphanCandidates)).toBe(1);
    expect(existsSync(blobs().pathOf(file.hash))).toBe(false);
  });

  it('survive a delete of a file with the same bytes while the upload waits for its row commit', async () => {
    const text = 'bytes uploaded twice: once kept, once deleted meanwhile';
    const first = await uploaded(0, text);
    const writes = t.service.domain.writes;
    const real = writes.run.bind(writes);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let reached!: () => void;
    const held = new Promise<void>((r) => (reached = r));
    // Holds the next write (the upload's row insert) after its bytes are in the store.
    writes.run = (async (fn: () => unknown) => {
      writes.run = real;
      reached();
      await gate;
      return real(fn);
    }) as typeof writes.run;
    try {
      const upload = t.admin.uploadFile(
        { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(0), field_uuid: FILE },
        { blob: new Blob([text], { type: 'text/plain' }), name: 'again0.txt' },
      );
      await held;
      // The delete's own removal runs outside a transaction: at once.
      const del = await t.admin.send('DELETE', `/file/${first.uuid}`);
      expect(del.status).toBe(200);
      await blobs().settled();
      release();
      await upload;
    } finally {
      writes.run = real;
      release();
    }
    const again = t.service.ctx.db.prepare('SELECT uuid FROM files WHERE original_name = ?').get('again0.txt') as { uuid: string };
    const res = await t.admin.send('GET', `/file/${again.uuid}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(text);
  });
});
