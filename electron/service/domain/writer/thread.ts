// The write worker's thread: its own connection (synchronous=FULL) and its own group commit, so
// the mutation, change log, commit and fsync of a record write run beside the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../../store/db.js';
import { createCtx, serviceConfig } from '../context.js';
import { Domain } from '../domain.js';
import { OdrError } from '../errors.js';
import { runWriteOp, type WriteReply, type WriteRequest } from './ops.js';

const { file, nativeBinding } = workerData as { file: string; nativeBinding?: string };
const db = openDatabase(file, { nativeBinding });
const d = new Domain(createCtx(db, '', serviceConfig()));
const port = parentPort!;

port.on('message', (m: WriteRequest | 'stop') => {
  if (m === 'stop') {
    // Queued after every op it was sent, so they are all committed and answered before it closes.
    void d.writes
      .run(() => undefined)
      .finally(() => {
        db.close();
        port.postMessage('stopped');
      });
    return;
  }
  const counters = () => ({ batches: d.writes.batches, operations: d.writes.operations, commitMs: d.writes.commitMs });
  d.writes
    .run(() => runWriteOp(d, m))
    .then(
      (r) => port.postMessage({ id: m.id, counters: counters(), ok: true, ...r } satisfies WriteReply),
      (e: unknown) =>
        port.postMessage({
          id: m.id,
          counters: counters(),
          ok: false,
          status: e instanceof OdrError ? e.status : 0,
          message: e instanceof Error ? e.message : String(e),
        } satisfies WriteReply),
    );
});
port.postMessage('ready');
