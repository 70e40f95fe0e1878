import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { fileStore } from '../../store/files.js';

/**
 * File bytes live under <data>/files/ab/cd/<sha256>, named by their content hash: equal
 * uploads share one copy, and no user-supplied name ever becomes a path.
 */
export class BlobStore {
  readonly root: string;

  constructor(private readonly ctx: Ctx) {
    this.root = path.join(ctx.dataDir, 'files');
    mkdirSync(path.join(this.root, 'tmp'), { recursive: true });
  }

  pathOf(hash: string): string {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`not a content hash: ${hash}`);
    return path.join(this.root, hash.slice(0, 2), hash.slice(2, 4), hash);
  }

  dirOf(hash: string): string {
    return path.dirname(this.pathOf(hash));
  }

  tmpPath(name: string): string {
    return path.join(this.root, 'tmp', name);
  }

  /**
   * Deletes the bytes of hashes no file row references any more. Called inside a transaction
   * (a sync pull deleting files), it waits until that transaction has ended: deleting the bytes
   * of a row the transaction then rolls back would leave a file without its content. Answers how
   * many it removed now (0 when deferred).
   */
  removeUnreferenced(hashes: Iterable<string>): number {
    // Deferred past a close: the bytes stay, as they would had the app stopped a moment earlier.
    if (!this.ctx.db.open) return 0;
    if (this.ctx.db.inTransaction) {
      const later = [...hashes];
      // A macrotask, not a microtask: a transaction held across an await would re-queue forever.
      if (later.length) setImmediate(() => this.removeUnreferenced(later));
      return 0;
    }
    const files = fileStore(this.ctx.db);
    let removed = 0;
    for (const h of hashes) {
      if (files.isReferenced(h)) continue;
      rmSync(this.pathOf(h), { force: true });
      removed++;
    }
    return removed;
  }
}
