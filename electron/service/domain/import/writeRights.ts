import type { Domain } from '../domain.js';
import { RightLost } from '../errors.js';
import type { JobReporter } from '../jobRunner.js';
import { editsAll, isAdmin } from '../permissions.js';
import type { DatatypeInfo } from '../schemaCache.js';
import type { User } from '../users.js';

// A long write job (an import, a sample) checks its user's right when it is asked for, then
// writes batch after batch for minutes, yielding between them. A right taken away meanwhile (a
// role revoked, a super-user demoted, the account removed) must stop the writes at the next
// batch, so each batch reads the user again (Users.get: rows as of the current users_rev) and
// judges the right with what it reads.

export { RightLost } from '../errors.js';

/**
 * Why `was` (the user as of the last batch that held the right) no longer edits every record
 * (or, `right` 'administer', administers) `dt` as `now` (the same user read again, undefined
 * once removed): words for the job error.
 */
export function lostEditRight(
  was: User,
  now: User | undefined,
  dt: DatatypeInfo,
  right: 'edit every record of' | 'administer' = 'edit every record of',
): string {
  const name = `dataset "${dt.top.name}"`;
  if (!now) return 'your account was removed';
  if (was.isSuper && !now.isSuper) return 'you are no longer a super-user';
  const before = was.roles.get(dt.top.id);
  const after = now.roles.get(dt.top.id);
  if (before !== after)
    return after ? `your ${before ?? 'no'} role on ${name} was changed to ${after}` : `your ${before} role on ${name} was removed`;
  return `you may no longer ${right} ${name}`;
}

/**
 * The user read again before a batch that writes into `dt` with the right to edit all of it
 * (a CSV import): that user, or RightLost naming what changed and what was written (`written`,
 * e.g. "2000 rows were written").
 */
export function editorNow(d: Domain, was: User, dt: DatatypeInfo, written: string): User {
  const now = d.users.get(was.id);
  if (now && editsAll(now, dt)) return now;
  throw new RightLost(`Stopped: ${lostEditRight(was, now, dt)}; ${written}, the rest were not`);
}

/**
 * The reporter of a job whose every step needs its user to administer `dt` (bulk thumbnails):
 * each progress report and cancel check reads the user and the dataset again and answers
 * "stop" once the right is gone; `lost()` then says why, for the job's error.
 */
export function whileAdmin(d: Domain, user: User, dt: DatatypeInfo, r: JobReporter): JobReporter & { lost: () => string | null } {
  let was = user;
  let lost: string | null = null;
  const holds = (): boolean => {
    if (lost) return false;
    const cur = d.schema().datatypes.get(dt.id);
    const now = d.users.get(user.id);
    if (!cur) lost = `dataset ${dt.uuid} was deleted`;
    else if (!now || !isAdmin(now, cur)) lost = lostEditRight(was, now, cur, 'administer');
    else was = now;
    return !lost;
  };
  return {
    progress: (current, total) => holds() && r.progress(current, total),
    cancelled: () => !holds() || r.cancelled(),
    lost: () => lost,
  };
}
