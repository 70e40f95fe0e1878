import { recordLists } from '../../electron/service/store/recordLists.js';
import type { Service } from '../../electron/service/service.js';
import { SYNTH } from '../../bench/synthetic.js';

/** The synthetic dataset's records an FTS5 query matches, as the admin's table lists them (rid order). */
export function matchingRids(service: Service): (match: string | null) => number[] {
  const d = service.domain;
  const dt = d.datatype(SYNTH.dataset);
  const admin = d.users.firstSuperUser()!;
  return (match) =>
    recordLists(d.ctx.db).tableOrder({
      dt: dt.id,
      user: admin.id,
      now: d.now(),
      scope: 'all',
      match,
      sort: { kind: 'rid' },
      dir: 'ASC',
      filter: null,
    });
}
