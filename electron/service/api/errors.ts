import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ZodError } from 'zod';
import type { ErrorBody } from '../../../shared/schemas/common.js';
import { OdrError } from '../domain/errors.js';
import { ImportError } from '../domain/import/importFile.js';
import { zodMessage } from '../../../shared/zodMessage.js';

export function errorBody(code: number, message: string, detail?: object): ErrorBody {
  return { error: { code, message, ...detail } };
}

/**
 * Whether the client hung up before its request was read to the end (the socket closed
 * mid-body). Reading such a body throws "aborted"; that is the client's doing, not ours.
 */
export function clientAborted(c: Context): boolean {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && (incoming.aborted || (incoming.destroyed && !incoming.complete))) return true;
  return c.req.raw.signal?.aborted === true;
}

/** Every failure leaves as `{"error": {"code", "message"}}` with the same HTTP status. */
export function onError(err: Error, c: Context): Response {
  if (clientAborted(c)) {
    // Nobody reads this answer; the log says what happened without crying "server error".
    console.warn(`[odr] client aborted ${c.req.method} ${c.req.path} mid-request (${err.message})`);
    return c.json(errorBody(400, 'The client aborted the request before its body was complete'), 400);
  }
  let status = 500;
  let message = 'Unexpected server error';
  let detail: object | undefined;
  if (err instanceof OdrError) {
    status = err.status;
    message = err.message;
    detail = err.detail;
  } else if (err instanceof ZodError) {
    status = 400;
    message = zodMessage(err);
  } else if (err instanceof ImportError) {
    status = 400;
    message = err.message;
  } else if (err instanceof HTTPException) {
    status = err.status;
    message = err.message || (status === 413 ? 'Request body too large' : 'Request failed');
  } else {
    console.error(`[odr] ${c.req.method} ${c.req.path}:`, err);
  }
  const res = c.json(errorBody(status, message, detail), status as 400);
  if (status === 401) res.headers.set('WWW-Authenticate', 'Bearer');
  return res;
}
