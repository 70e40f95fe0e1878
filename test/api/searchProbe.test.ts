import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_TYPE_NAMES, type FieldTypeName } from '../../shared/fieldTypes.js';
import { SYNTH } from '../../bench/synthetic.js';
import { RecordSearch } from '../../electron/service/domain/search/recordSearch.js';
import { datasetKeyCriteria } from '../../electron/service/domain/search/searchKeys.js';
import type { User } from '../../electron/service/domain/users.js';
import { USER, startSyntheticService, type TestService } from '../support/service.js';

// A paged search first tests the dataset's first records one by one (the probe) and reads the
// terms' whole sets only when those hold less than a page. Whichever way it goes, a page must be
// exactly the start of the full result: checked here for every kind of term, dense and sparse,
// negated, OR-ed, on child records, as an admin and as a user who may read only some records.

const N = 200;
const id = (t: FieldTypeName) => String(9001 + FIELD_TYPE_NAMES.indexOf(t));

let t: TestService;
let search: RecordSearch;
let users: User[];

beforeAll(async () => {
  t = await startSyntheticService(N);
  const d = t.service.domain;
  search = new RecordSearch(d);
  users = [d.users.firstSuperUser()!, d.users.findByEmail(USER.email)!];
}, 60_000);
afterAll(() => t.close());

describe('paged searches (the probe of the first records)', () => {
  const keys = (): Record<string, string>[] => {
    const schema = t.service.domain.schema();
    const f = (ty: FieldTypeName) => schema.fieldsByUuid.get(SYNTH.field(ty))!;
    const radio = f('Single Radio').options.map((o) => o.id);
    const tags = f('Tags').tags;
    return [
      { [id('Medium Text')]: 'basalt' },
      { [id('Medium Text')]: 'no such word anywhere' },
      { [id('Short Text')]: 'S-0000' },
      { [id('Short Text')]: '"S-000010"' },
      { [id('Integer')]: '>=0' },
      { [id('Integer')]: '>=0 <2000' },
      { [id('Decimal')]: '>=-500 <0' },
      { [`${id('DateTime')}_s`]: '2015-01-01', [`${id('DateTime')}_e`]: '2019-12-31' },
      { [id('Single Radio')]: String(radio[0]) },
      { [id('Single Radio')]: `-${radio[0]}` },
      { [id('Single Radio')]: `${radio[1]},-${radio[0]}` },
      { [id('Tags')]: String(tags[0]!.id) },
      { [id('Tags')]: `-${tags[1]!.id}` },
      { [id('File')]: '!""' },
      { [id('File')]: '""' },
      // Child records' fields (the child datatype's 9101 short text, 9102 decimal).
      { '9101': 'split' },
      { '9101': 'split 3' },
      { '9102': '>=5' },
      { [id('Medium Text')]: 'basalt', [id('Single Radio')]: String(radio[0]) },
      { [id('Medium Text')]: 'basalt', '9101': 'split', merge: 'OR' },
      { [id('Medium Text')]: 'no such word anywhere', '9101': 'split 2', merge: 'OR' },
      { gen: 'basalt', [id('Single Radio')]: String(radio[1]) },
    ];
  };

  it('a page is the start of the full result for every kind of term, whatever the density', () => {
    let probed = 0;
    for (const key of keys()) {
      for (const user of users) {
        const crit = datasetKeyCriteria(t.service.domain, user, { dt_id: '901', ...key });
        const all = search.run(user, crit);
        for (const page of [1, 3, 10, 40]) {
          expect(search.run(user, crit, page), `${JSON.stringify(key)}, page of ${page}`).toEqual(all.slice(0, page));
          // A page the probe's records can hold: found there (no set read) when the match is common.
          if (all.length >= page && all[page - 1]! <= firstRids(page * 10).at(-1)!) probed++;
        }
      }
    }
    // Both ways were taken: many pages came from the probe, others needed the sets.
    expect(probed).toBeGreaterThan(20);
  });

  it('the probe seeks per record (no scan of a field) and keeps rid order without a sort', () => {
    const d = t.service.domain;
    const user = users[0]!;
    const tag = d.schema().fieldsByUuid.get(SYNTH.field('Tags'))!.tags[0]!.id;
    for (const key of [{ [id('Medium Text')]: 'basalt' }, { '9101': 'split' }, { [id('Tags')]: String(tag) }, { [id('File')]: '!""' }]) {
      const crit = datasetKeyCriteria(d, user, { dt_id: '901', ...key });
      const plan = search.plan(crit, 10).join('\n');
      expect(plan, JSON.stringify(key)).toMatch(/CO-ROUTINE r/);
      expect(plan, JSON.stringify(key)).not.toMatch(/TEMP B-TREE|SCAN v|datafield_id=\?\)\n/);
      // The full result still reads the sets.
      expect(search.plan(crit).join('\n')).toMatch(/LIST SUBQUERY/);
    }
    // An exact value is an index seek already: no probe.
    const exact = datasetKeyCriteria(d, user, { dt_id: '901', [id('Short Text')]: '"S-000010"' });
    expect(search.plan(exact, 10).join('\n')).not.toMatch(/CO-ROUTINE/);
    const child = search.plan(datasetKeyCriteria(d, user, { dt_id: '901', '9101': 'split' }), 10).join('\n');
    expect(child).toMatch(/records_by_top \(top_rid=\?\)/);
    expect(child).toMatch(/field_values USING PRIMARY KEY \(record_rid=\? AND datafield_id=\?\)|v USING PRIMARY KEY/);
  });
});

/** The dataset's first `n` top-level rids, in order (what the probe tests): an admin's unfiltered search. */
function firstRids(n: number): number[] {
  const admin = users[0]!;
  return search.run(admin, datasetKeyCriteria(t.service.domain, admin, { dt_id: '901' })).slice(0, n);
}
