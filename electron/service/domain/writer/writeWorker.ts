import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Domain } from '../domain.js';
import { OdrError } from '../errors.js';
import type { RecordRow } from '../../store/rows.js';
import { runWriteOp, type CommitCounters, type WriteOp, type WriteReply } from './ops.js';

/**
 * The thread's entry: writer.cjs beside the bundled service (scripts/build-electron.mjs), or,
 * running from TypeScript (tsx, vitest), thread.ts loaded through tsx's loader, which a worker
 * does not inherit from its parent and so registers first.
 */
function entry(): { file: string; eval: boolean } {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return { file: path.join(path.dirname(fileURLToPath(here)), 'writer.cjs'), eval: false };
  // Its ESM entry as the package's exports name it (require.resolve would give the CJS one).
  const pkg = createRequire(here).resolve('tsx/package.json');
  const api = (JSON.parse(readFileSync(pkg, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api']!;
  const tsx = pathToFileURL(path.join(path.dirname(pkg), api.import.default)).href;
  const thread = new URL('./thread.ts', here).href;
  return { file: `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(thread)}); })`, eval: true };
}

/** A failure the worker reported that is not the API's own (an OdrError): answered as a server error. */
export class WriteWorkerError extends Error {}

/**
 * Record field edits run on a worker thread that owns a second write connection (synchronous=
 * FULL, its own group commit): the mutation, its change log, the commit and its fsync cost that
 * thread while this one parses, checks and renders answers. Started at the first edit. A reply
 * comes after the commit, so this connection reads the edit at once (WAL) and the render cache
 * sees another connection's commit before any answer renders. If the worker cannot run, edits
 * run here, in this thread's group commit, as they did before it.
 */
export class WriteWorker {
  private worker: Worker | null = null;
  private ready: Promise<boolean> | null = null;
  private dead = false;
  private next = 1;
  private readonly pending = new Map<number, { resolve: (r: WriteReply) => void; reject: (e: unknown) => void }>();
  /** The worker's group-commit counters as of its last reply. */
  counters: CommitCounters = { batches: 0, operations: 0, commitMs: 0 };

  constructor(
    private readonly d: Domain,
    private readonly file: string,
    private readonly nativeBinding?: string,
  ) {}

  private start(): Promise<boolean> {
    const e = entry();
    const w = new Worker(e.file, { eval: e.eval, workerData: { file: this.file, nativeBinding: this.nativeBinding } });
    this.worker = w;
    const failed = (err: unknown) => {
      if (!this.dead) console.error('[odr] write worker stopped; record edits run on the main thread:', err);
      this.dead = true;
      this.worker = null;
      for (const p of this.pending.values()) p.reject(new WriteWorkerError(`write worker stopped: ${String(err)}`));
      this.pending.clear();
    };
    w.on('message', (m: WriteReply | string) => {
      if (typeof m === 'string') return;
      this.counters = m.counters;
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      p?.resolve(m);
    });
    w.on('error', failed);
    w.on('exit', (code) => failed(`exit ${code}`));
    return new Promise((resolve) => {
      w.once('message', (m) => resolve(m === 'ready'));
      w.once('exit', () => resolve(false));
    });
  }

  /** Runs `op`; resolves, once it is durable, with the record as this thread's connection now reads it. */
  async run(op: WriteOp): Promise<RecordRow> {
    if (!this.ready && !this.dead) this.ready = this.start();
    if (this.dead || !(await this.ready) || !this.worker) {
      const done = await this.d.writes.run(() => runWriteOp(this.d, op));
      return this.d.store.byRid(done.rid)!;
    }
    const worker = this.worker;
    const reply = await new Promise<WriteReply>((resolve, reject) => {
      const id = this.next++;
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...op, id });
    });
    if (!reply.ok) {
      if (reply.status) throw new OdrError(reply.status as OdrError['status'], reply.message);
      throw new WriteWorkerError(reply.message);
    }
    for (const e of reply.announced) this.d.ctx.events.emit('records', e);
    const rec = this.d.store.byRid(reply.rid);
    // Deleted between the commit and this read (another writer): as if the edit came first.
    if (!rec) throw new OdrError(404, "This Datarecord can't be found.");
    return rec;
  }

  /** Lets the worker finish the edits it holds, close its connection and exit. */
  async stop(): Promise<void> {
    const w = this.worker;
    if (!w || !this.ready || !(await this.ready)) return;
    this.dead = true; // from here on, and for edits arriving while it stops: this thread
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => void w.terminate(), 5000);
      w.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      w.on('message', (m) => (m === 'stopped' ? void w.terminate() : undefined));
      w.postMessage('stop');
    });
  }
}
