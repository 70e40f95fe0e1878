import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { ErrorBody } from '../../shared/schemas/common.js';
import { ADMIN, USER, startSyntheticService, type TestService } from '../support/service.js';

// What a refused request says, over real HTTP: a schema error names the field (uuid and name)
// and what it takes, a 403 names every kind of user who may, a type goes with its right article,
// and numeric filter bounds take JSON numbers. Each refusal also changes nothing.

const DS = SYNTH.dataset;
const R = SYNTH.record(1);
const INT = SYNTH.field('Integer');
const BOOL = SYNTH.field('Boolean');

let t: TestService;
let userToken = '';
beforeAll(async () => {
  t = await startSyntheticService(12);
  userToken = (await t.loginAs(USER.email, USER.password)).token!;
});
afterAll(() => t.close());

async function call(method: string, path: string, body?: unknown, token = t.admin.token!) {
  const base = path.startsWith('/local/') ? t.host.url : t.api;
  const form = body instanceof FormData || body instanceof URLSearchParams;
  const res = await fetch(`${base}${path}`, {
    method,
    redirect: 'manual',
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && !form ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : form ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: text ? (JSON.parse(text) as unknown) : undefined };
}

/** The request is refused with `status`, an ODR error body, and nothing stored changes. */
async function refusal(status: number, method: string, path: string, body?: unknown, token?: string): Promise<string> {
  const before = t.digest();
  const r = await call(method, path, body, token);
  expect(r.status, `${method} ${path} → ${r.text}`).toBe(status);
  const message = ErrorBody.parse(r.json).error.message;
  expect(t.digest(), `${method} ${path} changed data`).toBe(before);
  return message;
}

const save = (fields: unknown[], records?: unknown[]) => ({ record_uuid: R, fields, ...(records ? { records } : {}) });

describe('schema errors name the field and what it takes', () => {
  it('a save with a wrong value type names the field by uuid, name and type, and quotes what was given', async () => {
    const m = await refusal(
      400,
      'POST',
      '/dataset/record',
      save([
        { field_uuid: SYNTH.field('Long Text'), value: 'ok' },
        { field_uuid: INT, value: { a: 1 } },
      ]),
    );
    expect(m).toBe(`Field ${INT} "Integer field" (Integer): value must be a string, a number, true, false or null, not {"a":1}`);
  });

  it('a Boolean selected "yes" lists the flags it takes', async () => {
    const m = await refusal(400, 'POST', '/dataset/record', save([{ field_uuid: BOOL, selected: 'yes' }]));
    expect(m).toBe(`Field ${BOOL} "Boolean field" (Boolean): selected must be 0, 1, "0", "1", true, false or null, not "yes"`);
  });

  it('an entry named by template_field_uuid, an unknown field and a child record are named too', async () => {
    const m1 = await refusal(400, 'PUT', '/dataset', save([{ field_uuid: 'nope', values: 'x' }]));
    expect(m1).toBe('Field nope (fields[0]): values must be an array, not "x"');
    const child = { record_uuid: SYNTH.childRecord(1, 1), fields: [{ field_uuid: SYNTH.childField(1), value: [1] }] };
    const m2 = await refusal(400, 'POST', '/dataset/record', save([], [child]));
    expect(m2).toMatch(
      new RegExp(`^Child record ${SYNTH.childRecord(1, 1)}, field ${SYNTH.childField(1)} "Split" \\(Short Text\\): value must be`),
    );
    expect(m2).toContain('not [1]');
    const m3 = await refusal(400, 'POST', '/dataset/record', save([{ field_uuid: SYNTH.field('File'), files: [{ file_uuid: 5 }] }]));
    expect(m3).toBe(`Field ${SYNTH.field('File')} "File field" (File): files[0].file_uuid must be a string, not 5`);
  });

  it('names no field to a caller who may not edit the record, nor for a record that does not exist', async () => {
    // Rights to the target come first, as for a valid save: the field's name stays unsaid.
    const refused = await refusal(403, 'POST', '/dataset/record', save([{ field_uuid: INT, value: { a: 1 } }]), userToken);
    expect(refused).toMatch(/^You may not (view|edit) record /);
    expect(refused).not.toContain('Integer field');
    const missing = await refusal(
      400,
      'POST',
      '/dataset/record',
      { record_uuid: 'nothing', fields: [{ field_uuid: INT, value: { a: 1 } }] },
      userToken,
    );
    expect(missing).toBe(`Field ${INT} (fields[0]): value must be a string, a number, true, false or null, not {"a":1}`);
  });

  // The class: every schema-checked body, whichever route, says where and what in words.
  const bodies: [string, string, unknown, RegExp][] = [
    [
      'POST',
      `/record/${R}/${INT}/value`,
      { value: { nested: true } },
      new RegExp(`^Record ${R}, field ${INT}: value must be a string, a number, true, false or null, not \\{"nested":true\\}$`),
    ],
    ['POST', '/dataset/record', { record_uuid: R, fields: 'x' }, /^fields must be an array, not "x"$/],
    ['POST', '/dataset/record', { user_email: 5, dataset: { record_uuid: R } }, /record_uuid/],
    ['DELETE', '/record', { record_uuids: [1] }, /^record_uuids\[0\] must be a string, not a number$/],
    ['POST', `/local/datasets/${DS}/batch`, { records: 'all' }, /^records must be an array, not "all"$/],
    [
      'PUT',
      `/local/datasets/${DS}/columns`,
      { columns: [{ key: '_id', width: 'wide' }] },
      /^columns\[0\]\.width must be a number, not "wide"$/,
    ],
  ];
  for (const [method, path, body, want] of bodies) {
    it(`${method} ${path} ${JSON.stringify(body)} → 400 in words`, async () => {
      const m = await refusal(400, method, path, body);
      expect(m).toMatch(want);
      expect(m).not.toMatch(/Invalid input|\.\d+\./);
    });
  }
});

describe('the value and option routes name the record, field and option of every refusal', () => {
  const OPT = SYNTH.field('Single Radio');
  const where = `Record ${R}, field ${INT}`;
  const cases: [string, string, string | undefined, number, string | RegExp][] = [
    [
      'POST',
      `/record/${R}/${INT}/value`,
      undefined,
      400,
      `${where}: the request body is empty; a JSON object with a "value" property is required`,
    ],
    ['POST', `/record/${R}/${INT}/value`, '{"value":', 400, new RegExp(`^${where}: Request body is not valid JSON: `)],
    ['POST', `/record/${R}/${INT}/value`, '[1]', 400, `${where}: the request body must be a JSON object with a "value" property, not [1]`],
    ['POST', `/record/${R}/${INT}/value`, '{"val":1}', 400, `${where}: value is required: a string, a number, true, false or null`],
    [
      'POST',
      `/record/${R}/${INT}/value`,
      '{"value":1,"user_email":true}',
      400,
      `${where}: user_email must be a string, a number or null, not true`,
    ],
    [
      'POST',
      `/record/${R}/${INT}/value`,
      '{"value":"x"}',
      400,
      /^Invalid Integer value: "x" is not an integer \(field f\w+ "Integer field"\)$/,
    ],
    ['POST', `/record/${R}/nofield/value`, '{"value":1}', 404, `This Datafield "nofield" can't be found.`],
    ['POST', `/record/norecord/${INT}/value`, '{"value":1}', 404, `This Datarecord "norecord" can't be found.`],
    [
      'POST',
      `/record/${R}/${OPT}/value`,
      '{"value":1}',
      400,
      `Record ${R}, field ${OPT} "Single Radio field" (Single Radio): this field type does not support a "value" update`,
    ],
    [
      'PUT',
      `/record/${R}/${INT}/x/maybe`,
      undefined,
      400,
      `Record ${R}, field ${INT}, option x: the last URL segment must be "selected" or "unselected", not "maybe"`,
    ],
    [
      'PUT',
      `/record/${R}/${INT}/x/selected`,
      undefined,
      400,
      `Record ${R}, field ${INT} "Integer field" (Integer): this field type does not support tag/radio selection`,
    ],
    ['PUT', `/record/${R}/${OPT}/nooption/selected`, undefined, 404, `This Radio option "nooption" of field ${OPT} can't be found.`],
    ['PUT', `/record/norecord/${OPT}/x/selected`, undefined, 404, `This Datarecord "norecord" can't be found.`],
  ];
  it.each(cases)('%s %s %s → %i naming where', async (method, path, body, status, want) => {
    const before = t.digest();
    const res = await fetch(`${t.api}${path}`, {
      method,
      headers: { Authorization: `Bearer ${t.admin.token!}`, 'content-type': 'application/json' },
      body,
    });
    const message = ErrorBody.parse(await res.json()).error.message;
    expect(res.status, message).toBe(status);
    if (typeof want === 'string') expect(message).toBe(want);
    else expect(message).toMatch(want);
    expect(t.digest()).toBe(before);
  });
});

describe('a null or numeric user_email in a value body is taken as absent, as published clients send it', () => {
  // The query's user_email still applies: a plain user naming another user is refused (403),
  // which shows the body's null/number fell back to it instead of being a 400.
  it.each(['null', '0', '7'])('user_email: %s', async (raw) => {
    const body = `{"value":3,"user_email":${raw}}`;
    const post = (query: string) =>
      fetch(`${t.api}/record/${R}/${INT}/value${query}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${userToken}`, 'content-type': 'application/json' },
        body,
      });
    const before = t.digest();
    const other = await post(`?user_email=${encodeURIComponent(ADMIN.email)}`);
    expect(other.status, await other.text()).toBe(403);
    expect(t.digest()).toBe(before);
    const self = await post('');
    expect(self.status, await self.text()).not.toBe(400);
  });
});

describe('numeric range filters take JSON numbers', () => {
  const list = (filters: unknown) =>
    call('GET', `/local/datasets/${DS}/records?limit=50&filters=${encodeURIComponent(JSON.stringify(filters))}`);
  const uuids = (r: Awaited<ReturnType<typeof call>>) =>
    (r.json as { records: { record_uuid: string }[] }).records.map((x) => x.record_uuid);

  it('Integer and Decimal bounds as numbers select what the same bounds as strings select', async () => {
    for (const field of [INT, SYNTH.field('Decimal')]) {
      const all = await list([]);
      expect(all.status).toBe(200);
      const values = (all.json as { records: { fields: { field_uuid: string; value: unknown }[] }[] }).records
        .map((r) => Number(r.fields.find((f) => f.field_uuid === field)?.value))
        .filter((v) => Number.isFinite(v))
        .sort((a, b) => a - b);
      expect(values.length, 'the sample has values to filter').toBeGreaterThan(3);
      const min = values[1]!;
      const max = values.at(-2)!;
      const asNumbers = await list([{ kind: 'range', field, min, max }]);
      const asStrings = await list([{ kind: 'range', field, min: String(min), max: String(max) }]);
      expect(asNumbers.status, asNumbers.text).toBe(200);
      expect(asStrings.status, asStrings.text).toBe(200);
      expect(uuids(asNumbers)).toEqual(uuids(asStrings));
      expect(uuids(asNumbers).length).toBe(values.filter((v) => v >= min && v <= max).length);
    }
  });

  it('a text filter takes a number as its digits; a date bound must stay a "YYYY-MM-DD" string', async () => {
    const text = await list([{ kind: 'text', field: SYNTH.field('Short Text'), contains: 1 }]);
    expect(text.status, text.text).toBe(200);
    const date = await list([{ kind: 'range', field: SYNTH.field('DateTime'), min: 2020 }]);
    expect(date.status).toBe(400);
    expect(ErrorBody.parse(date.json).error.message).toBe(
      'filters[0].min: 2020 is not a date: DateTime field is a DateTime field, so its bounds are "YYYY-MM-DD" strings',
    );
    const bad = await list([{ kind: 'range', field: INT, min: true }]);
    expect(ErrorBody.parse(bad.json).error.message).toBe('filters[0].min must be a number or a string, not true');
  });
});

describe('403s name everyone who may', () => {
  it('editing a record names its creator, the dataset owner, admins, editors and super-users', async () => {
    const m = await refusal(403, 'POST', `/record/${R}/${INT}/value`, { value: 5 }, userToken);
    expect(m).toMatch(/may not edit record/);
    for (const who of ['creator', 'owner', 'admins', 'editors', 'super-users']) expect(m).toContain(who);
  });

  it('dataset admin rights (delete, publish, thumbnails, roles) name the owner, its admins and super-users', async () => {
    const cases: [string, string, unknown][] = [
      ['DELETE', `/dataset/${DS}`, undefined],
      ['POST', '/dataset/publish', new URLSearchParams({ dataset_uuid: DS })],
      ['POST', `/local/thumbnails/${DS}`, undefined],
      ['POST', '/user/permissions', new URLSearchParams({ user_email: USER.email, dataset_uuid: DS, permission: 'admin' })],
    ];
    for (const [method, path, body] of cases) {
      const m = await refusal(403, method, path, body, userToken);
      for (const who of ['owner', 'admins', 'super-users']) expect(m, `${method} ${path}`).toContain(who);
    }
  });
});

describe('a type takes its article', () => {
  it('an upload to an Integer field says "an Integer field"', async () => {
    const f = new FormData();
    f.set('dataset_uuid', DS);
    f.set('record_uuid', R);
    f.set('field_uuid', INT);
    f.set('file', new Blob(['x'], { type: 'text/plain' }), 'x.txt');
    const m = await refusal(400, 'POST', '/file', f);
    expect(m).toBe(`Field ${INT} "Integer field" is an Integer field, not a File or Image field`);
  });

  it('a filter on an Image field and a save key a type does not take say "an Image" and "an Integer"', async () => {
    const r = await call(
      'GET',
      `/local/datasets/${DS}/records?filters=${encodeURIComponent(JSON.stringify([{ kind: 'text', field: SYNTH.field('Image'), contains: 'a' }]))}`,
    );
    expect(ErrorBody.parse(r.json).error.message).toBe('filters[0]: Image field is an Image field, not a text field');
    const m = await refusal(400, 'POST', '/dataset/record', save([{ field_uuid: INT, values: [] }]));
    expect(m).toBe(`Field ${INT} "Integer field" is an Integer field and takes no "values"`);
  });
});
