import type { Context } from 'hono';
import type { Domain } from '../../domain/domain.js';
import type { RenderOptions } from '../../domain/recordReader.js';
import { recordLists } from '../../store/recordLists.js';

/**
 * Records rendered per pull of a streamed list: the answer is never built whole (a limit of 0 or
 * a million asks for every record of a dataset), only this many records at a time, and the next
 * ones only once the client has taken these (the stream's backpressure).
 */
export const STREAM_CHUNK = 200;
const COMMA = Buffer.from(',');

/**
 * `head` + the records of `rids` as JSON, comma-separated, + `tail`, rendered STREAM_CHUNK at a
 * time through the render cache. Each chunk reads its rows afresh: a record deleted while the
 * answer streams is left out (a `count` in `head` then names one more than arrive).
 */
export function streamRecords(c: Context, d: Domain, head: string, rids: readonly number[], tail: string, opts: RenderOptions): Response {
  let next = 0;
  let first = true;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(ctrl) {
        ctrl.enqueue(Buffer.from(head));
      },
      pull(ctrl) {
        if (next >= rids.length) {
          ctrl.enqueue(Buffer.from(tail));
          ctrl.close();
          return;
        }
        const rows = recordLists(d.ctx.db).byRids(rids.slice(next, next + STREAM_CHUNK));
        next += STREAM_CHUNK;
        const out: Buffer[] = [];
        for (const part of d.renderTopsJson(rows, opts)) {
          if (!first) out.push(COMMA);
          first = false;
          out.push(part);
        }
        if (out.length) ctrl.enqueue(Buffer.concat(out));
      },
    },
    { highWaterMark: 1 },
  );
  return c.body(stream as ReadableStream<Uint8Array<ArrayBuffer>>, 200, { 'content-type': 'application/json' });
}
