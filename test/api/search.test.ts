import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OdrClient } from '../../shared/client/odrClient.js';
import { PRIVATE_DATE } from '../../shared/dates.js';
import { FIELD_TYPE_NAMES, type FieldTypeName } from '../../shared/fieldTypes.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { SYNTH } from '../../bench/synthetic.js';
import { RecordSearch } from '../../electron/service/domain/search/recordSearch.js';
import { fieldListCriteria } from '../../electron/service/domain/search/searchKeys.js';
import { USER, startSyntheticService, type TestService } from '../support/service.js';

// The real server's search routes over real HTTP. Expected answers are computed from the
// records themselves (read back through GET), so the search is checked against the data, not
// against numbers written into the test.

const N = 40;
const DT_ID = 901;
const fieldId = (t: FieldTypeName) => 9001 + FIELD_TYPE_NAMES.indexOf(t);
const key = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const F = (t: FieldTypeName) => SYNTH.field(t);

let t: TestService;
let user: OdrClient;
let all: OdrRecord[];
let userRecordUuid: string;

const fieldOf = (r: OdrRecord, t: FieldTypeName) => r.fields.find((f) => f.field_uuid === F(t));
const uuids = (rs: { record_uuid: string }[]) => rs.map((r) => r.record_uuid).sort();
const isPublic = (r: OdrRecord) => r._record_metadata._public_date !== PRIVATE_DATE;
/** Records the ordinary user may read: public ones and the one they created. */
const visibleToUser = (rs: OdrRecord[]) => rs.filter((r) => isPublic(r) || r.record_uuid === userRecordUuid);

/** Every word a record tree shows: values, option and tag names, file names. */
function shownWords(r: OdrRecord): string {
  const out: string[] = [];
  for (const f of r.fields) {
    if (typeof f.value === 'string' || typeof f.value === 'number') out.push(String(f.value));
    for (const v of f.values ?? []) out.push(v.name);
    for (const v of f.tags ?? []) out.push(v.name);
    for (const v of f.files ?? []) out.push(v.original_name);
  }
  for (const c of r.records) out.push(shownWords(c));
  return out.join(' ').toLowerCase();
}

async function post<T>(c: OdrClient, path: string, json: unknown): Promise<T> {
  return c.request<T>('POST', path, { json });
}
async function errorOf(res: Promise<Response>): Promise<{ status: number; body: { error: { code: number; message: string } } }> {
  const r = await res;
  return { status: r.status, body: (await r.json()) as { error: { code: number; message: string } } };
}

beforeAll(async () => {
  t = await startSyntheticService(N);
  user = await t.loginAs(USER.email, USER.password);
  // A private record of the ordinary user's own: visible to them, like on GET.
  const mine = await user.request<OdrRecord>('POST', `/dataset/${SYNTH.dataset}/record`);
  userRecordUuid = mine.record_uuid;
  await user.request('POST', `/record/${mine.record_uuid}/${F('Short Text')}/value`, { json: { value: 'MINE-1' } });
  all = (await t.admin.request<{ records: OdrRecord[] }>('GET', `/dataset/${SYNTH.dataset}/1000/0`)).records;
  expect(all.length).toBe(N + 1);
});
afterAll(() => t.close());

describe('POST /dataset/{uuid}/search/{limit}/{offset}', () => {
  it('an empty field list returns every readable top-level record, the same set as record reads allow', async () => {
    const a = await post<{ records: OdrRecord[] }>(t.admin, `/dataset/${SYNTH.dataset}/search/0/0`, { fields: [] });
    expect(uuids(a.records)).toEqual(uuids(all));
    const u = await post<{ records: OdrRecord[] }>(user, `/dataset/${SYNTH.dataset}/search/0/0`, { fields: [] });
    expect(uuids(u.records)).toEqual(uuids(visibleToUser(all)));
    expect(u.records.some((r) => r.record_uuid === userRecordUuid)).toBe(true);
    // Every record the search returns reads with 200 for that user, every other one with 403.
    for (const r of all) {
      const status = (await user.send('GET', `/dataset/record/${r.record_uuid}`)).status;
      expect(status).toBe(u.records.some((x) => x.record_uuid === r.record_uuid) ? 200 : 403);
    }
  });

  it('text contains, exact, empty and filled, case-insensitive', async () => {
    const find = async (c: OdrClient, value: string) =>
      uuids(
        (await post<{ records: OdrRecord[] }>(c, `/dataset/${SYNTH.dataset}/search`, { fields: [{ field_uuid: F('Short Text'), value }] }))
          .records,
      );
    expect(await find(t.admin, 's-000007')).toEqual([SYNTH.record(7)]);
    expect(await find(t.admin, '"S-00000"')).toEqual([]);
    expect(await find(t.admin, '"S-000012"')).toEqual([SYNTH.record(12)]);
    // Record 6 is private: the admin finds it, the ordinary user does not.
    expect(await find(t.admin, 'S-000006')).toEqual([SYNTH.record(6)]);
    expect(await find(user, 'S-000006')).toEqual([]);
    expect(await find(user, 'MINE')).toEqual([userRecordUuid]);
    const medium = (w: string) =>
      all
        .filter((r) =>
          String(fieldOf(r, 'Medium Text')?.value ?? '')
            .toLowerCase()
            .includes(w),
        )
        .map((r) => r.record_uuid)
        .sort();
    const got = uuids(
      (
        await post<{ records: OdrRecord[] }>(t.admin, `/dataset/${SYNTH.dataset}/search`, {
          fields: [{ field_uuid: F('Medium Text'), value: 'BASALT' }],
        })
      ).records,
    );
    expect(got).toEqual(medium('basalt'));
    expect(got.length).toBeGreaterThan(0);
    const filled = uuids(
      (
        await post<{ records: OdrRecord[] }>(t.admin, `/dataset/${SYNTH.dataset}/search`, {
          fields: [{ field_uuid: F('Medium Text'), value: '!""' }],
        })
      ).records,
    );
    expect(filled).toEqual(uuids(all.filter((r) => fieldOf(r, 'Medium Text')?.value)));
    const empty = uuids(
      (
        await post<{ records: OdrRecord[] }>(t.admin, `/dataset/${SYNTH.dataset}/search`, {
          fields: [{ field_uuid: F('Medium Text'), value: '""' }],
        })
      ).records,
    );
    expect(empty).toEqual([userRecordUuid]);
  });

  it('numbers by comparison, options by name or uuid, several fields combine with AND', async () => {
    const ints = (r: OdrRecord) => fieldOf(r, 'Integer')?.value as number | undefined;
    const got = await post<{ records: OdrRecord[] }>(t.admin, `/dataset/${SYNTH.dataset}/search`, {
      fields: [{ field_uuid: F('Integer'), value: '>=0 <50000' }],
    });
    const want = all.filter((r) => ints(r) !== undefined && ints(r)! >= 0 && ints(r)! < 50000);
    expect(uuids(got.records)).toEqual(uuids(want));
    const opt = (r: OdrRecord, u: string) => (fieldOf(r, 'Single Radio')?.values ?? []).some((v) => v.template_radio_option_uuid === u);
    const byName = await post<{ records: OdrRecord[] }>(t.admin, `/dataset/${SYNTH.dataset}/search`, {
      fields: [{ field_uuid: F('Single Radio'), value: 'Single Radio option 2' }],
    });
    expect(uuids(byName.records)).toEqual(uuids(all.filter((r) => opt(r, SYNTH.option('Single Radio', 2)))));
    const both = await post<{ records: OdrRecord[] }>(t.admin, `/dataset/${SYNTH.dataset}/search`, {
      fields: [
        { field_uuid: F('Single Radio'), value: SYNTH.option('Single Radio', 2) },
        { field_uuid: F('Integer'), value: '>=0 <50000' },
      ],
    });
    expect(uuids(both.records)).toEqual(uuids(want.filter((r) => opt(r, SYNTH.option('Single Radio', 2)))));
  });

  it('decimal ranges compare as numbers, through the covering numeric index (no scan of the field)', async () => {
    const dec = (r: OdrRecord) => fieldOf(r, 'Decimal')?.value as string | null | undefined;
    for (const [lo, hi] of [
      [-100, 100],
      [-500, -250.5],
      [0, 0.5],
    ] as const) {
      const got = await post<{ records: OdrRecord[] }>(t.admin, `/dataset/${SYNTH.dataset}/search`, {
        fields: [{ field_uuid: F('Decimal'), value: `>=${lo} <${hi}` }],
      });
      const want = all.filter((r) => typeof dec(r) === 'string' && Number(dec(r)) >= lo && Number(dec(r)) < hi);
      expect(uuids(got.records)).toEqual(uuids(want));
    }
    const d = t.service.domain;
    const crit = fieldListCriteria(d.datatype(SYNTH.dataset), { fields: [{ field_uuid: F('Decimal'), value: '>=1.5 <20' }] });
    expect(new RecordSearch(d).plan(crit).join('\n')).toMatch(
      /COVERING INDEX field_values_by_number \(datafield_id=\? AND <expr>>\? AND <expr><\?\)/,
    );
  });

  it('limit and offset page the result in database order', async () => {
    const full = await post<{ records: OdrRecord[] }>(t.admin, `/dataset/${SYNTH.dataset}/search/0/0`, { fields: [] });
    const pageTwo = await post<{ records: OdrRecord[] }>(t.admin, `/dataset/${SYNTH.dataset}/search/5/5`, { fields: [] });
    expect(pageTwo.records.map((r) => r.record_uuid)).toEqual(full.records.slice(5, 10).map((r) => r.record_uuid));
  });

  it('bad input: 4xx with an error body naming the problem, nothing changed', async () => {
    const before = t.digest();
    const cases: [string, unknown, number, RegExp][] = [
      [`/dataset/${SYNTH.dataset}/search`, { fields: [{ field_uuid: 'nope', value: 'x' }] }, 400, /nope is not a field/],
      [`/dataset/${SYNTH.dataset}/search`, { fields: [{ field_uuid: F('Integer'), value: 'abc' }] }, 400, /"abc" is not a number/],
      [`/dataset/${SYNTH.dataset}/search`, { fields: [{ field_uuid: F('Single Radio'), value: 'no such option' }] }, 400, /not an option/],
      [`/dataset/${SYNTH.dataset}/search`, { fields: [{ field_uuid: F('Boolean'), value: 'maybe' }] }, 400, /Boolean field/],
      [`/dataset/${SYNTH.dataset}/search`, { fields: 'x' }, 400, /fields/],
      [`/dataset/${SYNTH.dataset}/search`, [1], 400, /JSON object/],
      [`/dataset/ffff0000/search`, { fields: [] }, 404, /can't be found/],
      [`/dataset/${SYNTH.child}/search`, { fields: [] }, 400, /top-level/],
      [`/dataset/${SYNTH.dataset}/search/1000000000/0`, { fields: [] }, 400, /billion/],
    ];
    for (const [path, body, status, msg] of cases) {
      const e = await errorOf(t.admin.send('POST', path, { json: body }));
      expect(e.status, path).toBe(status);
      expect(e.body.error.code).toBe(status);
      expect(e.body.error.message).toMatch(msg);
    }
    const raw = await errorOf(
      t.admin.send('POST', `/dataset/${SYNTH.dataset}/search`, { headers: { 'Content-Type': 'application/json' }, json: undefined }),
    );
    expect(raw.status).toBe(400);
    const anon = await errorOf(t.client().send('POST', `/dataset/${SYNTH.dataset}/search`, { json: { fields: [] } }));
    expect(anon.status).toBe(401);
    expect(t.digest()).toBe(before);
  });
});

describe('GET /dataset/search/{search_key}/{limit}/{offset}/{return_as_list}', () => {
  const dsKey = (extra: Record<string, string>) => key({ dt_id: String(DT_ID), ...extra });

  it('general text through the full-text index, every word as a prefix', async () => {
    const got = await t.admin.request<{ count: number; records: OdrRecord[] }>(
      'GET',
      `/dataset/search/${dsKey({ gen: 'hematite' })}/0/0/0`,
    );
    const want = all.filter((r) => /(^|[^a-z])hematite/.test(shownWords(r)));
    expect(uuids(got.records)).toEqual(uuids(want));
    expect(got.count).toBe(want.length);
    const u = await user.request<{ records: OdrRecord[] }>('GET', `/dataset/search/${dsKey({ gen: 'hematite' })}/0/0/0`);
    expect(uuids(u.records)).toEqual(uuids(visibleToUser(want)));
  });

  it('fields by numeric id: radio ids with "-" for not selected, date ranges, files; return_as_list gives ids', async () => {
    const radio = all[0]!.fields.find((f) => f.field_uuid === F('Multiple Radio'))!.values!;
    const o1 = radio.find((v) => v.template_radio_option_uuid === SYNTH.option('Multiple Radio', 1))!.id;
    const o3id = (await t.admin.request<{ records: OdrRecord[] }>('GET', `/dataset/${SYNTH.dataset}/1000/0`)).records
      .flatMap((r) => fieldOf(r, 'Multiple Radio')?.values ?? [])
      .find((v) => v.template_radio_option_uuid === SYNTH.option('Multiple Radio', 3))!.id;
    const has = (r: OdrRecord, u: string) => (fieldOf(r, 'Multiple Radio')?.values ?? []).some((v) => v.template_radio_option_uuid === u);
    const got = await t.admin.request<{ records: OdrRecord[] }>(
      'GET',
      `/dataset/search/${dsKey({ [fieldId('Multiple Radio')]: `${o1},-${o3id}` })}/0/0/0`,
    );
    expect(uuids(got.records)).toEqual(
      uuids(all.filter((r) => has(r, SYNTH.option('Multiple Radio', 1)) && !has(r, SYNTH.option('Multiple Radio', 3)))),
    );

    const date = (r: OdrRecord) => String(fieldOf(r, 'DateTime')?.value ?? '');
    const range = await t.admin.request<{ records: OdrRecord[] }>(
      'GET',
      `/dataset/search/${dsKey({ [`${fieldId('DateTime')}_s`]: '2015-01-01', [`${fieldId('DateTime')}_e`]: '2019-12-31' })}/0/0/0`,
    );
    expect(uuids(range.records)).toEqual(uuids(all.filter((r) => date(r) >= '2015-01-01' && date(r) !== '' && date(r) <= '2019-12-31')));

    const files = await t.admin.request<{ records: OdrRecord[] }>('GET', `/dataset/search/${dsKey({ [fieldId('File')]: '!""' })}/0/0/0`);
    expect(uuids(files.records)).toEqual(uuids(all.filter((r) => (fieldOf(r, 'File')?.files ?? []).length > 0)));

    const list = await t.admin.request<{
      count: number;
      records: { internal_id: number; unique_id: string; external_id: string; record_name: string }[];
    }>('GET', `/dataset/search/${dsKey({ [fieldId('File')]: '!""' })}/2/0/1`);
    expect(list.count).toBe(2);
    expect(list.records.map((r) => r.unique_id)).toEqual(files.records.slice(0, 2).map((r) => r.record_uuid));
    expect(list.records[0]).toEqual({
      internal_id: files.records[0]!.internal_id,
      unique_id: files.records[0]!.record_uuid,
      external_id: '',
      record_name: '',
    });
  });

  it('malformed keys are 400s that name the problem; an unknown dataset is 404', async () => {
    const before = t.digest();
    const cases: [string, number, RegExp][] = [
      ['!!!', 400, /not base64/],
      [Buffer.from('{nope').toString('base64url'), 400, /Invalid JSON/],
      [key([1, 2]), 400, /JSON object/],
      [key({ gen: 'x' }), 400, /missing "dt_id"/],
      [dsKey({ 99999: 'x' }), 400, /invalid datafield 99999/],
      [dsKey({ [fieldId('Single Radio')]: '123456' }), 400, /invalid radio option 123456/],
      [dsKey({ [fieldId('Integer')]: '>x' }), 400, /not a number/],
      [dsKey({ [`${fieldId('DateTime')}_s`]: '2020-13-45' }), 400, /not a valid date/],
      [dsKey({ merge: 'XOR' }), 400, /merge/],
      [dsKey({ bogus: '1' }), 400, /unrecognized parameter "bogus"/],
      [key({ dt_id: '424242' }), 404, /can't be found/],
    ];
    for (const [k, status, msg] of cases) {
      const e = await errorOf(t.admin.send('GET', `/dataset/search/${k}/0/0/0`));
      expect(e.status, k).toBe(status);
      expect(e.body.error.message).toMatch(msg);
    }
    expect(t.digest()).toBe(before);
  });
});

describe('template search: GET /search/{key}/{limit}/{offset}, POST /search/{limit}/{offset}', () => {
  it('selected_tags match a tag and the tags below it; GET answers {records}, POST {count, records}', async () => {
    const root = 2;
    const below = [SYNTH.tag(root), ...[1, 2, 3].map((k) => SYNTH.tag(root * 3 + k))];
    const tagged = (r: OdrRecord) => (fieldOf(r, 'Tags')?.tags ?? []).some((x) => below.includes(x.template_tag_uuid));
    const k = {
      template_uuid: SYNTH.dataset,
      fields: [{ template_field_uuid: F('Tags'), selected_tags: [{ template_tag_uuid: SYNTH.tag(root) }] }],
    };
    const got = await t.admin.request<{ records: OdrRecord[] }>('GET', `/search/${key(k)}/0/0`);
    expect(Object.keys(got)).toEqual(['records']);
    expect(uuids(got.records)).toEqual(uuids(all.filter(tagged)));
    const posted = await t.admin.request<{ count: number; records: OdrRecord[] }>('POST', '/search/3/0', { form: { search_key: key(k) } });
    expect(posted.count).toBe(got.records.length);
    expect(posted.records.map((r) => r.record_uuid)).toEqual(got.records.slice(0, 3).map((r) => r.record_uuid));
    const legacy = await t.admin.request<{ records: OdrRecord[] }>('POST', '/legacysearch/0/0', { json: { search_key: key(k) } });
    expect(uuids(legacy.records)).toEqual(uuids(got.records));
    const asUser = await user.request<{ records: OdrRecord[] }>('GET', `/search/${key(k)}`);
    expect(uuids(asUser.records)).toEqual(uuids(visibleToUser(all.filter(tagged))));
  });

  it('general plus a value and selected_options combine with AND', async () => {
    const k = {
      template_uuid: SYNTH.dataset,
      general: 'sample',
      fields: [
        {
          template_field_uuid: F('Single Select'),
          selected_options: [
            { template_radio_option_uuid: SYNTH.option('Single Select', 1) },
            { template_radio_option_uuid: SYNTH.option('Single Select', 4) },
          ],
        },
      ],
    };
    const got = await t.admin.request<{ records: OdrRecord[] }>('GET', `/search/${key(k)}/0/0`);
    const sel = (r: OdrRecord) =>
      (fieldOf(r, 'Single Select')?.values ?? []).some((v) =>
        [SYNTH.option('Single Select', 1), SYNTH.option('Single Select', 4)].includes(v.template_radio_option_uuid),
      );
    expect(uuids(got.records)).toEqual(uuids(all.filter((r) => sel(r) && /(^|[^a-z])sample/.test(shownWords(r)))));
  });

  it('bad template keys and bodies are 400/404 with an error body; nothing changed', async () => {
    const before = t.digest();
    const gets: [unknown, number, RegExp][] = [
      [{ fields: [] }, 400, /missing "template_uuid"/],
      [{ template_uuid: 'ABC' }, 400, /wrong format/],
      [{ template_uuid: 'ffff0000' }, 404, /can't be found/],
      [{ template_uuid: SYNTH.dataset, fields: [{ template_field_uuid: 'zzz', value: 'x' }] }, 400, /invalid datafield zzz/],
      [{ template_uuid: SYNTH.dataset, fields: [{ template_field_uuid: F('Tags'), value: 'x' }] }, 400, /"value" defined for a "Tags"/],
      [
        {
          template_uuid: SYNTH.dataset,
          fields: [{ template_field_uuid: F('Single Radio'), selected_options: [{ template_radio_option_uuid: 'nope' }] }],
        },
        400,
        /does not belong/,
      ],
      [{ template_uuid: SYNTH.dataset, fields: [{ template_field_uuid: F('Integer') }] }, 400, /no search criteria/],
      [{ template_uuid: SYNTH.dataset, fields: 'x' }, 400, /must be an array/],
      [{ template_uuid: SYNTH.dataset, sort_by: [{ dir: 'up', template_field_uuid: 'x' }] }, 400, /sort direction/],
    ];
    for (const [k, status, msg] of gets) {
      const e = await errorOf(t.admin.send('GET', `/search/${key(k)}/0/0`));
      expect(e.status, JSON.stringify(k)).toBe(status);
      expect(e.body.error.message).toMatch(msg);
    }
    for (const body of [{}, { search_key: '' }, { search_key: 5 }]) {
      const e = await errorOf(t.admin.send('POST', '/search/0/0', { json: body }));
      expect(e.status).toBe(400);
      expect(e.body.error.code).toBe(400);
    }
    expect((await errorOf(t.client().send('GET', `/search/${key({ template_uuid: SYNTH.dataset })}`))).status).toBe(401);
    expect(t.digest()).toBe(before);
  });

  it('the search routes leave the older /search/… routes alone', async () => {
    expect((await t.admin.send('GET', '/search/databases')).status).toBe(200);
    expect((await t.admin.send('GET', `/search/record/${SYNTH.record(1)}`)).status).toBe(200);
    expect((await t.admin.send('GET', `/search/database/${SYNTH.dataset}/records/0/0`)).status).toBe(200);
  });
});

describe('field statistics', () => {
  const count = (rs: OdrRecord[], u: string) =>
    rs.filter((r) => (fieldOf(r, 'Multiple Select')?.values ?? []).some((v) => v.template_radio_option_uuid === u)).length;

  it('stats: per option name, records having it, most used first, counting only readable records', async () => {
    const s = await t.admin.request<Record<string, { count: number; template_radio_option_uuid: string }>>(
      'GET',
      `/search/field/stats/${SYNTH.dataset}/${F('Multiple Select')}`,
    );
    for (let k = 1; k <= 5; k++) {
      const u = SYNTH.option('Multiple Select', k);
      const n = count(all, u);
      if (n) expect(s[`Multiple Select option ${k}`]).toEqual({ count: n, template_radio_option_uuid: u });
      else expect(s[`Multiple Select option ${k}`]).toBeUndefined();
    }
    const counts = Object.values(s).map((x) => x.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    const su = await user.request<Record<string, { count: number }>>('GET', `/search/field/stats/${SYNTH.dataset}/${F('Multiple Select')}`);
    expect(su['Multiple Select option 2']!.count).toBe(count(visibleToUser(all), SYNTH.option('Multiple Select', 2)));
    expect(su['Multiple Select option 2']!.count).toBeLessThan(s['Multiple Select option 2']!.count);
  });

  it('statsbydataset: the template field with a count on every option; tags count their subtree', async () => {
    const s = await t.admin.request<{ field_uuid: string; radio_options: { template_radio_option_uuid: string; count: number }[] }>(
      'GET',
      `/search/field/statsbydataset/${SYNTH.dataset}/${F('Multiple Select')}`,
    );
    expect(s.field_uuid).toBe(F('Multiple Select'));
    expect(s.radio_options.map((o) => o.count)).toEqual([1, 2, 3, 4, 5].map((k) => count(all, SYNTH.option('Multiple Select', k))));
    const tags = await t.admin.request<{ tags: { template_tag_uuid: string; count: number; tags: { count: number }[] }[] }>(
      'GET',
      `/search/field/statsbydataset/${SYNTH.dataset}/${F('Tags')}`,
    );
    const withRoot = (root: number) =>
      all.filter((r) => (fieldOf(r, 'Tags')?.tags ?? []).some((x) => x.template_tag_uuid === SYNTH.tag(root))).length;
    expect(tags.tags.map((x) => x.count)).toEqual([1, 2, 3].map(withRoot));
    for (const root of tags.tags) expect(root.count).toBeGreaterThanOrEqual(Math.max(...root.tags.map((c) => c.count)));
  });

  it('GET /search/field/{uuid} answers the template field; bad input answers 4xx', async () => {
    const f = await t.admin.request<{ field_uuid: string; fieldtype: string; radio_options: unknown[] }>(
      'GET',
      `/search/field/${F('Single Radio')}`,
    );
    expect(f.field_uuid).toBe(F('Single Radio'));
    expect(f.radio_options).toHaveLength(3);
    const cases: [string, number, RegExp][] = [
      [`/search/field/stats/ffff0000/${F('Single Radio')}`, 404, /Datatype/],
      [`/search/field/stats/${SYNTH.dataset}/ffff0000`, 404, /Datafield/],
      [`/search/field/stats/${SYNTH.dataset}/${F('Integer')}`, 400, /Radio or Tag/],
      [`/search/field/statsbydataset/${SYNTH.child}/${F('Integer')}`, 400, /top-level/],
      ['/search/field/ffff0000', 404, /Datafield/],
    ];
    for (const [path, status, msg] of cases) {
      const e = await errorOf(t.admin.send('GET', path));
      expect(e.status, path).toBe(status);
      expect(e.body.error.message).toMatch(msg);
    }
  });
});
