import type { Context } from 'hono';
import type { Domain } from '../../domain/domain.js';

/**
 * The next part of a streamed answer: bytes to send; `undefined`: nothing this time (all of a
 * chunk was deleted or hidden meanwhile), take the next; `null`: no more, send the tail.
 */
export type NextPart = () => Buffer | undefined | null;

/**
 * A JSON answer written one part per pull of its stream, the next part made only once the client
 * took the one before (the stream's backpressure), so a list of any length is never built whole.
 * A failure mid-answer (a part that fails to read or render, the database closed by a shutdown:
 * `ctx.streams` cuts the open ones) errors the stream: the client sees a broken response, never
 * a well-formed truncated list. `sent` names how far it got, for the log.
 */
export function streamJson(c: Context, d: Domain, head: string, next: NextPart, tail: () => string, sent: () => string): Response {
  let ctrl!: ReadableStreamDefaultController<Uint8Array>;
  const open = {
    cut: (reason: Error) => {
      done();
      ctrl.error(reason);
    },
  };
  const done = () => void d.ctx.streams.delete(open);
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        ctrl = controller;
        d.ctx.streams.add(open);
        controller.enqueue(Buffer.from(head));
      },
      async pull(controller) {
        try {
          // A pull that enqueues nothing is not called again (the answer would hang): an empty
          // part moves on to the next one, after a turn of the event loop, so a long run of them
          // holds up no other request.
          for (;;) {
            const part = next();
            if (part === null) break;
            if (part !== undefined) {
              controller.enqueue(part);
              return;
            }
            await new Promise<void>((resolve) => setImmediate(resolve));
            if (!d.ctx.streams.has(open)) return; // cut or cancelled meanwhile
          }
          controller.enqueue(Buffer.from(tail()));
          controller.close();
          done();
        } catch (e) {
          console.error(`[odr] ${c.req.method} ${c.req.path}: the list broke off after ${sent()}:`, e);
          done();
          controller.error(e);
        }
      },
      cancel: done,
    },
    { highWaterMark: 1 },
  );
  return c.body(stream as ReadableStream<Uint8Array<ArrayBuffer>>, 200, { 'content-type': 'application/json' });
}
