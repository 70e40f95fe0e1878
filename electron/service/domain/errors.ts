import type { ChangedSince } from '../../../shared/schemas/common.js';

/** A failure the API answers with `{"error": {"code", "message"}}` and this HTTP status. */
export class OdrError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 416 | 422 | 500 | 502 | 503,
    message: string,
    /** Machine-readable facts sent beside code and message (e.g. a guarded write's `reason`). */
    readonly detail?: ChangedSince,
  ) {
    super(message);
  }
}

/**
 * Work that runs on after its request (a job, a streamed answer) stopped because its user lost a
 * right it needs, or lost the thing itself, meanwhile; the message says what, for the job's error.
 */
export class RightLost extends Error {}

export const badRequest = (m: string) => new OdrError(400, m);
export const forbidden = (m = 'Insufficient permissions.') => new OdrError(403, m);
/** ODR's wording: `This <Thing> can't be found.` */
export const notFound = (thing: string) => new OdrError(404, `This ${thing} can't be found.`);
