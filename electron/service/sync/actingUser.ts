import type { Domain } from '../domain/domain.js';
import { RightLost } from '../domain/errors.js';
import type { User } from '../domain/users.js';

// Sync acts for the whole data dir, so only a super-user may run it (api/routes/localSync.ts).
// That is checked once, when a run or a download job is asked for; the work then goes on for
// minutes, batch after batch. A super-user demoted (or removed) meanwhile must stop it at the next
// batch or step, as the import jobs stop (domain/import/writeRights.ts): each reads its user again
// first (Users.get: one indexed read of users_rev, rows rebuilt only when some user changed).

/** `was` read again: that user while still a super-user, else RightLost saying who and why. */
export function superUserNow(d: Domain, was: User): User {
  const now = d.users.get(was.id);
  if (now?.isSuper) return now;
  throw new RightLost(now ? `${was.email} is no longer a super-user` : `the account of ${was.email} was removed`);
}

/**
 * The message of work stopped by `e` (from superUserNow): why, what was done (kept: each batch
 * committed on its own) and that the rest waits, e.g. "Stopped: a@b is no longer a super-user;
 * 60 records were pulled, …".
 */
export function stoppedFor(e: RightLost, done: string): RightLost {
  return new RightLost(`Stopped: ${e.message}; ${done}; the rest waits for a super-user's next sync`);
}
