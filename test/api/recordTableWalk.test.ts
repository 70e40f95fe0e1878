import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { USER, startSyntheticService, type TestService } from '../support/service.js';
import { recordLists, type TableArgs, type TableSort } from '../../electron/service/store/recordLists.js';
import { RecordTable } from '../../electron/service/domain/search/recordTable.js';
import { RecordLists } from '../../electron/service/domain/records/list.js';
import { ftsQuery } from '../../electron/service/domain/search/searchIndex.js';
import type { User } from '../../electron/service/domain/users.js';

// The record table's first pages walk an index in order and stop; the whole list is sorted only
// for small results and deep pages. Both must give the same rows in the same order, with the
// same total, for every order, viewer and filter: checked here against the sorted list, on data
// with ties, mixed case and records without a value. Deep list pages start from kept rids.

let t: TestService;
let admin: User;
let user: User;
const N = 80;
const SHORT = ['apple', 'Apple', 'banana', '', 'APPLE', 'Zed', 'zed', '10', '9', 'éclair'];

beforeAll(async () => {
  t = await startSyntheticService(N);
  for (let i = 0; i < 30; i++) await t.admin.setValue(SYNTH.record(i), SYNTH.field('Short Text'), SHORT[i % SHORT.length]!);
  admin = t.service.domain.users.firstSuperUser()!;
  user = t.service.domain.users.findByEmail(USER.email)!;
  // The user's own records: readable to them whatever their public date.
  const mine = await t.loginAs(USER.email, USER.password);
  for (let i = 0; i < 3; i++) await mine.createRecord(SYNTH.dataset);
  await t.service.domain.search.catchUp();
}, 60_000);
afterAll(() => t.close());

const dt = () => t.service.domain.datatype(SYNTH.dataset);
const sortsOf = (): [string, TableSort][] => [
  ['rid', { kind: 'rid' }],
  ['update date', { kind: 'column', column: 'update_date' }],
  ...(['Short Text', 'Medium Text', 'Long Text', 'Paragraph Text'] as const).map((f): [string, TableSort] => [
    f,
    { kind: 'value', fieldId: dt().fieldsByUuid.get(SYNTH.field(f))!.id, numeric: false },
  ]),
];

describe('record table: the index walk gives the sorted list’s first rows', () => {
  it('for every walkable order, direction, viewer, text search and n', () => {
    const lists = recordLists(t.service.domain.ctx.db);
    const now = t.service.domain.now();
    let checked = 0;
    const sorts = sortsOf();
    for (const [name, sort] of sorts) {
      for (const dir of ['ASC', 'DESC'] as const) {
        for (const [who, scope] of [
          [admin, 'all'],
          [user, 'visible'],
        ] as const) {
          for (const match of [null, ftsQuery('basalt'), ftsQuery('zzznomatch')]) {
            const args: TableArgs = { dt: dt().id, user: who.id, now, scope, match, sort, dir, filter: null };
            const all = lists.tableOrder(args);
            expect(lists.tableCount(args), `${name} ${dir} ${scope} ${match}`).toBe(all.length);
            // Every top-level record is this dataset's here: the full-text count alone is exact.
            expect(lists.counted(dt().id).n).toBe(lists.allTopCount());
            expect(lists.tableCount(args, true), `${name} ${dir} ${scope} ${match} (index count)`).toBe(all.length);
            for (const n of [1, 5, 37, 200]) {
              expect(lists.tableFirst(args, n), `${name} ${dir} ${scope} ${match} n=${n}`).toEqual(all.slice(0, n));
              checked++;
            }
          }
        }
      }
    }
    expect(checked).toBe(sorts.length * 2 * 2 * 3 * 4);
  });

  it('orders text case-insensitively, ties by rid, records without a value last', () => {
    const lists = recordLists(t.service.domain.ctx.db);
    const sort = sortsOf().find(([n]) => n === 'Short Text')![1];
    const args: TableArgs = {
      dt: dt().id,
      user: admin.id,
      now: t.service.domain.now(),
      scope: 'all',
      match: null,
      sort,
      dir: 'ASC',
      filter: null,
    };
    const rids = lists.tableFirst(args, 1000)!;
    const value = (rid: number) => {
      const row = lists.byRids([rid])[0]!;
      const rec = t.service.domain.reader.renderRecord(row, { viewer: admin, now: args.now, apiBase: '' });
      const f = rec.fields.find((x) => x.field_uuid === SYNTH.field('Short Text')) as { value?: unknown } | undefined;
      return f?.value === undefined || f.value === null ? '' : String(f.value);
    };
    const values = rids.map(value);
    const filled = values.filter((v) => v !== '');
    expect(values.slice(filled.length).every((v) => v === '')).toBe(true);
    for (let i = 1; i < filled.length; i++) {
      const a = filled[i - 1]!.toLowerCase();
      const b = filled[i]!.toLowerCase();
      // NOCASE folds ASCII only, as SQLite's collation does.
      expect(a <= b || /[^ -~]/.test(a + b), `${filled[i - 1]} before ${filled[i]}`).toBe(true);
    }
    expect(new Set(rids).size).toBe(N + 3);
    // Orders without a walkable index answer null: the caller sorts.
    expect(lists.tableFirst({ ...args, sort: { kind: 'column', column: 'create_date' } }, 10)).toBeNull();
    expect(lists.tableFirst({ ...args, sort: { ...(sort as { fieldId: number }), kind: 'value', numeric: true } }, 10)).toBeNull();
  });

  it('a table that walks answers what the sorting table answers, page by page', () => {
    const d = t.service.domain;
    const walking = new RecordTable(d, d.search, { walkMax: 1000, sortMax: 0 });
    const sorting = new RecordTable(d, d.search, { walkMax: 0, sortMax: Infinity });
    const uuids = (r: { total: number; rows: { uuid: string }[] }) => ({ total: r.total, rows: r.rows.map((x) => x.uuid) });
    for (const who of [admin, user]) {
      for (const sort of [undefined, '_updated', '_created', SYNTH.field('Short Text'), SYNTH.field('Integer')]) {
        for (const q of [undefined, 'basalt']) {
          for (const dir of ['asc', 'desc'] as const) {
            for (const [offset, limit] of [
              [0, 10],
              [10, 25],
              [70, 100],
            ] as const) {
              const query = { sort, q, dir, offset, limit };
              expect(uuids(walking.query(who, dt(), query)), JSON.stringify(query)).toEqual(uuids(sorting.query(who, dt(), query)));
            }
          }
        }
      }
    }
  });
});

describe('full-text prefixes as the indexed terms they stand for', () => {
  it('finds exactly what the prefix query finds', () => {
    const d = t.service.domain;
    const lists = recordLists(d.ctx.db);
    const rids = (match: string | null) =>
      lists.tableOrder({ dt: dt().id, user: admin.id, now: d.now(), scope: 'all', match, sort: { kind: 'rid' }, dir: 'ASC', filter: null });
    const inputs = [
      'basalt',
      'BAS',
      'b',
      's',
      'ba ol',
      'bas sand',
      'zzznothing',
      'basalt zzznothing',
      'Séquencé',
      'foo_bar',
      'e0',
      '1',
      'éclair',
    ];
    let found = 0;
    for (const input of inputs) {
      const expanded = d.search.matchQuery(input)!;
      const want = rids(ftsQuery(input));
      expect(rids(expanded), `${input} → ${expanded}`).toEqual(want);
      found += want.length;
    }
    expect(found).toBeGreaterThan(0);
    // Common prefixes of few terms become exact terms (streamed); a prefix of many (the uuids') stays a prefix.
    expect(d.search.matchQuery('basal')).not.toContain('*');
    expect(d.search.matchQuery('e0')).toContain('*');
  });
});

describe('dataset counts and list pages from kept rids', () => {
  const countNow = () =>
    recordLists(t.service.domain.ctx.db).tableCount({
      dt: dt().id,
      user: admin.id,
      now: t.service.domain.now(),
      scope: 'all',
      match: null,
      sort: { kind: 'rid' },
      dir: 'ASC',
      filter: null,
    });

  it('pages deep in the list equal OFFSET pages, also after inserts and deletes', async () => {
    const d = t.service.domain;
    const stepped = new RecordLists(d, 7);
    const check = () => {
      expect(recordLists(d.ctx.db).counted(dt().id).n).toBe(countNow());
      const total = countNow();
      for (const offset of [0, 6, 7, 8, 13, 14, 50, total - 3, total, total + 5]) {
        for (const limit of [1, 7, 20]) {
          const want = recordLists(d.ctx.db).page('all', { dt: dt().id, user: admin.id, now: d.now(), limit, offset });
          expect(
            stepped.page(admin, dt(), limit, offset).map((r) => r.rid),
            `${offset}/${limit}`,
          ).toEqual(want.map((r) => r.rid));
        }
      }
    };
    check();
    // Deletes in the middle and at the end, then new records: the kept starts follow.
    await t.admin.deleteRecords([SYNTH.record(3), SYNTH.record(20), SYNTH.record(N - 1)]);
    check();
    for (let i = 0; i < 4; i++) await t.admin.createRecord(SYNTH.dataset);
    check();
    // A restore from the trash inserts the record again: counted, and the starts follow.
    const restored = await fetch(`${t.host.url}/local/records/${SYNTH.record(20)}/restore`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.admin.token}` },
    });
    expect(restored.status).toBe(200);
    check();
    const res = await fetch(`${t.host.url}/local/datasets`, { headers: { Authorization: `Bearer ${t.admin.token}` } });
    const { datasets } = (await res.json()) as { datasets: { uuid: string; records: number }[] };
    expect(datasets.find((x) => x.uuid === SYNTH.dataset)!.records).toBe(countNow());
  });

  /** Deep pages from kept starts equal OFFSET pages. */
  const deepPagesMatch = (stepped: RecordLists) => {
    const d = t.service.domain;
    const total = countNow();
    for (const offset of [7, 14, 21, total - 3]) {
      const want = recordLists(d.ctx.db).page('all', { dt: dt().id, user: admin.id, now: d.now(), limit: 7, offset });
      expect(
        stepped.page(admin, dt(), 7, offset).map((r) => r.rid),
        `offset ${offset}`,
      ).toEqual(want.map((r) => r.rid));
    }
  };

  it('keeps no starts read inside a transaction that rolls back', async () => {
    const d = t.service.domain;
    const stepped = new RecordLists(d, 7);
    const tops = recordLists(d.ctx.db).page('all', { dt: dt().id, user: admin.id, now: d.now(), limit: 12, offset: 0 });
    // Inside: a delete moves gen, a deep page is read; then everything rolls back.
    const rolledBack = d.ctx.db.transaction(() => {
      d.store.delete(tops[2]!.rid, d.now());
      expect(stepped.page(admin, dt(), 7, 14).length).toBe(7);
      throw new Error('roll back');
    });
    expect(rolledBack).toThrow('roll back');
    // Another delete hands out the same gen again, with other rows (one that moves the 8th rid).
    await t.admin.deleteRecords([tops[9]!.uuid]);
    deepPagesMatch(stepped);
  });

  it('deep pages stay right when a dataset comes back from the trash under the same datatype id', async () => {
    const d = t.service.domain;
    const stepped = new RecordLists(d, 7);
    const gen = () => recordLists(d.ctx.db).counted(dt().id).gen;
    const auth = { Authorization: `Bearer ${t.admin.token}` };
    const pagesMatch = () => deepPagesMatch(stepped);
    // Creates and deletes move gen well past the count, then the starts are kept at that gen.
    const made = [];
    for (let i = 0; i < 10; i++) made.push((await t.admin.createRecord(SYNTH.dataset)).record_uuid);
    await t.admin.deleteRecords(made);
    pagesMatch();
    const cached = gen();
    expect((await t.admin.send('DELETE', `/dataset/${SYNTH.dataset}`)).status).toBe(200);
    const trash = await fetch(`${t.host.url}/local/trash`, { headers: auth });
    const { datasets } = (await trash.json()) as { datasets: { id: string; dataset_uuid: string }[] };
    const entry = datasets.find((x) => x.dataset_uuid === SYNTH.dataset)!;
    const back = await fetch(`${t.host.url}/local/trash/${entry.id}/restore`, { method: 'POST', headers: auth });
    expect(back.status).toBe(200);
    // Records early in the list go, and new ones come, until the count's gen could meet the
    // cached one again (a count restarted at the restore would; one sequence never does).
    await t.admin.deleteRecords([SYNTH.record(1), SYNTH.record(2), SYNTH.record(5)]);
    for (let i = 0; i < 40 && gen() < cached; i++) await t.admin.createRecord(SYNTH.dataset);
    expect(gen()).not.toBe(cached);
    pagesMatch();
  });
});
