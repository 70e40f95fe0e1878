import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './db.js';

// SQLite's automatic checkpoint runs inside the commit that crosses the threshold, so every few
// hundred writes one of them also copies ~1000 pages into the database file and syncs it. Here
// a worker thread with its own connection checkpoints shortly after writes instead, on the other
// core; the main connection keeps a large automatic threshold only as a backstop.

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
db.pragma('busy_timeout = 1000');
const version = db.prepare('PRAGMA data_version').pluck();
let seen = version.get();
const timer = setInterval(() => {
  const v = version.get();
  if (v === seen) return;
  seen = v;
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy: next tick */ }
}, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m === 'stop') {
    clearInterval(timer);
    db.close();
    parentPort.postMessage('stopped');
  }
});
parentPort.postMessage('ready');
`;

export const BACKSTOP_PAGES = 20_000;

export class Checkpointer {
  private worker: Worker | null = null;

  constructor(
    private readonly db: Db,
    private readonly file: string,
    private readonly nativeBinding?: string,
    private readonly intervalMs = 250,
  ) {}

  start(): void {
    this.db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    this.worker = new Worker(WORKER, {
      eval: true,
      workerData: {
        file: this.file,
        nativeBinding: this.nativeBinding,
        intervalMs: this.intervalMs,
        module: createRequire(import.meta.url).resolve('better-sqlite3'),
      },
    });
    this.worker.unref();
    this.worker.on('error', (e) => {
      console.error('[odr] checkpointer stopped:', e);
      this.worker = null;
      this.db.pragma('wal_autocheckpoint = 1000');
    });
  }

  async stop(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (!w) return;
    // Held while stopping: an unref'd worker alone would let the process exit mid-close.
    w.ref();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => void w.terminate(), 2000);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      // The worker's port would keep it (and, ref'd, the process) alive after its database closed.
      w.once('message', (m) => (m === 'stopped' ? void w.terminate() : undefined));
      w.once('exit', done);
      w.postMessage('stop');
    });
  }
}
