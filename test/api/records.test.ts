import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OdrApiError, type OdrClient } from '../../shared/client/odrClient.js';
import { PRIVATE_DATE } from '../../shared/dates.js';
import type { FieldTypeName } from '../../shared/fieldTypes.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { ErrorBody } from '../../shared/schemas/common.js';
import { SYNTH } from '../../bench/synthetic.js';
import { USER, startSyntheticService, type TestService } from '../support/service.js';

const F = (t: FieldTypeName) => SYNTH.field(t);
const O = (t: FieldTypeName, i: number) => SYNTH.option(t, i);
const field = (r: OdrRecord, t: FieldTypeName) => r.fields.find((f) => f.field_uuid === F(t));
const selected = (r: OdrRecord, t: FieldTypeName) => (field(r, t)?.values ?? []).map((v) => v.template_radio_option_uuid);

async function status(p: Promise<unknown>): Promise<number> {
  return p.then(
    () => 200,
    (e: unknown) => (e instanceof OdrApiError ? e.status : -1),
  );
}

let t: TestService;
let now = new Date('2026-06-01T12:00:00Z');
// Time moves by weeks here; tokens must outlive that.
beforeAll(async () => {
  t = await startSyntheticService(30, { clock: () => now, config: { tokenTtlSeconds: 10 * 365 * 86400 } });
});
afterAll(() => t.close());

describe('POST /dataset/{uuid}/record (create)', () => {
  it('creates an empty private record; create responses use _updated_date and an integer record_name', async () => {
    const r = await t.admin.createRecord(SYNTH.dataset);
    expect(r.fields).toEqual([]);
    expect(r.records).toEqual([]);
    expect(r.record_name).toBe(r.internal_id);
    expect(r._record_metadata).toEqual({
      _create_date: '2026-06-01 12:00:00',
      _updated_date: '2026-06-01 12:00:00',
      _create_auth: 'Local Admin',
      _public_date: PRIVATE_DATE,
    });
    const read = await t.admin.record(r.record_uuid);
    expect(read._record_metadata._update_date).toBe('2026-06-01 12:00:00');
    expect(read.record_name).toBe(String(r.internal_id));
    expect(r.record_uuid).toMatch(/^[0-9a-f]{28}$/);
  });

  it('takes public_date and created form fields', async () => {
    const r = await t.admin.createRecord(SYNTH.dataset, { public_date: '2024-01-02', created: '2020-05-06 07:08:09' });
    expect(r._record_metadata._public_date).toBe('2024-01-02 00:00:00');
    expect(r._record_metadata._create_date).toBe('2020-05-06 07:08:09');
  });

  it('unknown dataset → 404; a child datatype → 400; a bad date → 400', async () => {
    expect(await status(t.admin.createRecord('ffff0000ffff'))).toBe(404);
    expect(await status(t.admin.createRecord(SYNTH.child))).toBe(400);
    const before = t.digest();
    expect(await status(t.admin.createRecord(SYNTH.dataset, { public_date: 'next blue moon' }))).toBe(400);
    expect(t.digest()).toBe(before);
  });
});

describe('GET /dataset/record and /dataset/{uuid}/{limit}/{offset}', () => {
  it('reads a record with typed values: Integer a number, Decimal a string, Boolean as selected', async () => {
    const r = await t.admin.record(SYNTH.record(3));
    expect(typeof field(r, 'Integer')!.value).toBe('number');
    expect(typeof field(r, 'Decimal')!.value).toBe('string');
    expect(field(r, 'Boolean')!.selected).toBeTypeOf('number');
    expect(field(r, 'Boolean')!.value).toBeUndefined();
    expect(r.record_name).toBe('S-000003');
    expect(field(r, 'Short Text')!._field_metadata).toMatchObject({
      _public_date: expect.any(String),
      _create_auth: 'Synthetic Generator',
    });
  });

  it('lists with limit default 100 and a zero-based offset; count is the number returned', async () => {
    const all = await t.admin.list(SYNTH.dataset);
    expect(all.count).toBe(all.records.length);
    expect(all.count).toBeGreaterThanOrEqual(30);
    const page = await t.admin.list(SYNTH.dataset, 5, 10);
    expect(page.count).toBe(5);
    expect(page.records.map((r) => r.record_uuid)).toEqual(all.records.slice(10, 15).map((r) => r.record_uuid));
    expect(page.records[0]!.records).toEqual(all.records[10]!.records);
    expect((await t.admin.list(SYNTH.dataset, 5, 10_000)).count).toBe(0);
  });

  it('children come nested; one in ten synthetic records has them', async () => {
    const r = await t.admin.record(SYNTH.record(10));
    expect(r.records.length).toBeGreaterThan(0);
    expect(r.records[0]!.database_uuid).toBe(SYNTH.child);
  });

  it('unknown record → 404, unknown dataset → 404, limit above the maximum → 400', async () => {
    expect(await status(t.admin.record('abc123'))).toBe(404);
    expect(await status(t.admin.list('abc123'))).toBe(404);
    expect(await status(t.admin.list(SYNTH.dataset, 20_000))).toBe(400);
  });

  it('another user sees public records and their own, not private ones of others', async () => {
    const user = await t.loginAs(USER.email, USER.password);
    const all = await t.admin.list(SYNTH.dataset, 1000);
    const seen = await user.list(SYNTH.dataset, 1000);
    const privateOthers = all.records.filter((r) => r._record_metadata._public_date === PRIVATE_DATE);
    expect(privateOthers.length).toBeGreaterThan(0);
    expect(seen.records.map((r) => r.record_uuid)).toEqual(
      all.records.filter((r) => r._record_metadata._public_date !== PRIVATE_DATE).map((r) => r.record_uuid),
    );
    expect(await status(user.record(privateOthers[0]!.record_uuid))).toBe(403);
  });

  it('the .json suffix is accepted', async () => {
    const res = await fetch(`${t.api}/dataset/record/${SYNTH.record(2)}.json`, { headers: { Authorization: `Bearer ${t.admin.token}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as OdrRecord).record_uuid).toBe(SYNTH.record(2));
  });
});

describe('POST /record/{r}/{f}/value', () => {
  const cases: [FieldTypeName, unknown, unknown][] = [
    ['Short Text', 'hello', 'hello'],
    ['Short Text', 'x'.repeat(32), 'x'.repeat(32)],
    ['Short Text', 'é'.repeat(16), 'é'.repeat(16)],
    ['Medium Text', 'm'.repeat(64), 'm'.repeat(64)],
    ['Long Text', 'l'.repeat(255), 'l'.repeat(255)],
    ['Paragraph Text', 'p'.repeat(5000), 'p'.repeat(5000)],
    ['Markdown', '# Title\n\n*em*', '# Title\n\n*em*'],
    ['Integer', '42', 42],
    ['Integer', -7, -7],
    ['Integer', '2147483647', 2147483647],
    ['Decimal', '007.50', '7.50'],
    ['Decimal', '.5', '0.5'],
    ['Decimal', '-0', '0'],
    ['Decimal', '1.2e-3', '1.2e-3'],
    ['Decimal', '1.23(4)', '1.23(4)'],
    ['Decimal', 3.25, '3.25'],
    ['DateTime', '2024-02-29', '2024-02-29'],
    ['DateTime', '', ''],
  ];
  it.each(cases)('%s accepts %j and stores %j', async (type, input, stored) => {
    const r = await t.admin.setValue(SYNTH.record(4), F(type), input as string);
    expect(field(r, type)!.value).toEqual(stored);
    expect((await t.admin.record(SYNTH.record(4))).fields.find((f) => f.field_uuid === F(type))!.value).toEqual(stored);
  });

  it.each([
    ['Boolean', '1', 1],
    ['Boolean', false, 0],
    ['Boolean', 'true', null],
  ] as const)('%s takes %j', async (type, input, sel) => {
    const p = t.admin.setValue(SYNTH.record(4), F(type), input);
    if (sel === null) expect(await status(p)).toBe(400);
    else expect(field(await p, type)!.selected).toBe(sel);
  });

  const invalid: [FieldTypeName, unknown][] = [
    ['Integer', 'abc'],
    ['Integer', '12x'],
    ['Integer', '1.9'],
    ['Integer', '007'],
    ['Integer', '2147483648'],
    ['Integer', '-0'],
    ['Integer', true],
    ['Decimal', 'abc'],
    ['Decimal', '1.2.3'],
    ['Decimal', '--1'],
    ['Short Text', 'x'.repeat(33)],
    ['Short Text', 'é'.repeat(17)],
    ['Medium Text', 'm'.repeat(65)],
    ['Long Text', 'l'.repeat(256)],
    ['DateTime', '2024-02-30'],
    ['DateTime', '2024-1-5'],
    ['DateTime', '2024-01-05 10:00:00'],
  ];
  it.each(invalid)('%s refuses %j with 400 and changes nothing', async (type, input) => {
    const before = t.digest();
    const e = await t.admin.setValue(SYNTH.record(5), F(type), input as string).catch((x: OdrApiError) => x);
    expect(e).toBeInstanceOf(OdrApiError);
    expect((e as OdrApiError).status).toBe(400);
    expect((e as OdrApiError).body).toMatchObject({ error: { code: 400, message: expect.stringContaining(type) } });
    expect(t.digest()).toBe(before);
  });

  it('the empty string clears: text to "", Integer and Decimal to null', async () => {
    for (const [type, cleared] of [
      ['Long Text', ''],
      ['Integer', null],
      ['Decimal', null],
    ] as const) {
      const r = await t.admin.setValue(SYNTH.record(6), F(type), '');
      expect(field(r, type)!.value).toBe(cleared);
    }
  });

  it('null changes nothing; option, file and XYZ fields take no value (400)', async () => {
    const before = t.digest();
    await t.admin.setValue(SYNTH.record(6), F('Long Text'), null);
    expect(t.digest()).toBe(before);
    for (const type of ['Single Radio', 'Tags', 'File', 'Image', 'XYZ Data'] as const) {
      expect(await status(t.admin.setValue(SYNTH.record(6), F(type), 'x'))).toBe(400);
    }
    expect(t.digest()).toBe(before);
  });

  it('record or field missing → 404; body missing or not JSON → 400', async () => {
    expect(await status(t.admin.setValue('0000000', F('Long Text'), 'x'))).toBe(404);
    expect(await status(t.admin.setValue(SYNTH.record(6), 'ffff0000', 'x'))).toBe(404);
    const post = (body: string) =>
      fetch(`${t.api}/record/${SYNTH.record(6)}/${F('Long Text')}/value`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.admin.token}`, 'content-type': 'application/json' },
        body,
      });
    for (const body of ['', '{"value":', '{"val":"x"}', '[1]', '{"value":{"a":1}}']) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).error.code).toBe(400);
    }
  });

  it('bumps _update_date of the record and its ancestors, and writes the change log', async () => {
    now = new Date('2026-06-02T08:00:00Z');
    const parent = await t.admin.record(SYNTH.record(20));
    const child = parent.records[0]!;
    await t.admin.setValue(child.record_uuid, SYNTH.childField(1), 'renamed split');
    const after = await t.admin.record(SYNTH.record(20));
    expect(after._record_metadata._update_date).toBe('2026-06-02 08:00:00');
    expect(after.records[0]!.fields.find((f) => f.field_uuid === SYNTH.childField(1))!.value).toBe('renamed split');
    const log = t.service.ctx.db.prepare("SELECT * FROM change_log WHERE op = 'value.set' ORDER BY seq DESC LIMIT 1").get() as Record<
      string,
      unknown
    >;
    expect(log).toMatchObject({
      record_uuid: child.record_uuid,
      top_record_uuid: SYNTH.record(20),
      field_uuid: SYNTH.childField(1),
      old: JSON.stringify('split 1'),
      new: JSON.stringify('renamed split'),
      dataset_uuid: SYNTH.dataset,
    });
  });
});

describe('PUT /record/{r}/{f}/{option}/{selected|unselected}', () => {
  const put = (r: string, type: FieldTypeName, opt: string, on: boolean) => t.admin.setOption(r, F(type), opt, on);

  it('radio: selecting moves the selection; repeating is a no-op', async () => {
    const rec = SYNTH.record(7);
    let r = await put(rec, 'Single Radio', O('Single Radio', 1), true);
    expect(selected(r, 'Single Radio')).toEqual([O('Single Radio', 1)]);
    r = await put(rec, 'Single Radio', O('Single Radio', 2), true);
    expect(selected(r, 'Single Radio')).toEqual([O('Single Radio', 2)]);
    const before = t.digest();
    r = await put(rec, 'Single Radio', O('Single Radio', 2), true);
    expect(selected(r, 'Single Radio')).toEqual([O('Single Radio', 2)]);
    expect(t.digest()).toBe(before);
  });

  it('unselect, and unselecting an unselected option is a no-op', async () => {
    const rec = SYNTH.record(7);
    let r = await put(rec, 'Single Radio', O('Single Radio', 2), false);
    expect(selected(r, 'Single Radio')).toEqual([]);
    const before = t.digest();
    r = await put(rec, 'Single Radio', O('Single Radio', 2), false);
    expect(selected(r, 'Single Radio')).toEqual([]);
    expect(t.digest()).toBe(before);
  });

  it('checkbox/multi-select: options are independent', async () => {
    const rec = SYNTH.record(8);
    for (const k of [1, 2, 3, 4, 5]) await put(rec, 'Multiple Select', O('Multiple Select', k), false);
    await put(rec, 'Multiple Select', O('Multiple Select', 1), true);
    let r = await put(rec, 'Multiple Select', O('Multiple Select', 4), true);
    expect(selected(r, 'Multiple Select')).toEqual([O('Multiple Select', 1), O('Multiple Select', 4)]);
    r = await put(rec, 'Multiple Select', O('Multiple Select', 1), false);
    expect(selected(r, 'Multiple Select')).toEqual([O('Multiple Select', 4)]);
  });

  it('tags: select and unselect one tag, without cascading', async () => {
    const rec = SYNTH.record(9);
    let r = await t.admin.setOption(rec, F('Tags'), SYNTH.tag(8), true);
    const tags = () => (field(r, 'Tags')!.tags ?? []).map((x) => x.template_tag_uuid);
    expect(tags()).toContain(SYNTH.tag(8));
    expect(field(r, 'Tags')!.tags!.find((x) => x.template_tag_uuid === SYNTH.tag(8))!.parent_template_tag_uuid).toBe(SYNTH.tag(2));
    r = await t.admin.setOption(rec, F('Tags'), SYNTH.tag(8), false);
    expect(tags()).not.toContain(SYNTH.tag(8));
  });

  it('404 for an unknown record, field or option; 400 for a field that takes no options or a bad last segment', async () => {
    expect(await status(put('0000000', 'Single Radio', O('Single Radio', 1), true))).toBe(404);
    expect(await status(t.admin.setOption(SYNTH.record(7), 'ffff0000', O('Single Radio', 1), true))).toBe(404);
    expect(await status(put(SYNTH.record(7), 'Single Radio', O('Single Select', 1), true))).toBe(404);
    expect(await status(put(SYNTH.record(7), 'Long Text', O('Single Radio', 1), true))).toBe(400);
    const res = await fetch(`${t.api}/record/${SYNTH.record(7)}/${F('Single Radio')}/${O('Single Radio', 1)}/maybe`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${t.admin.token}` },
    });
    expect(res.status).toBe(400);
  });
});

describe('POST /dataset/record/public', () => {
  const publish = (c: OdrClient, email: string, uuid: string, date?: string) =>
    c.setPublic({
      user_email: email,
      dataset_uuid: SYNTH.dataset,
      record_uuid: uuid,
      ...(date === undefined ? {} : { public_date: date }),
    });

  it('without a date: public now; the response uses _updated_date', async () => {
    now = new Date('2026-06-03T09:30:00Z');
    const r = await publish(t.admin, 'admin@test.local', SYNTH.record(3));
    expect(r._record_metadata._public_date).toBe('2026-06-03 09:30:00');
    expect(r._record_metadata._updated_date).toBe('2026-06-03 09:30:00');
  });

  it('a future date schedules publication: private to others until then, public after', async () => {
    const user = await t.loginAs(USER.email, USER.password);
    const mine = await t.admin.createRecord(SYNTH.dataset);
    const r = await publish(t.admin, 'admin@test.local', mine.record_uuid, '2026-06-10 00:00:00');
    expect(r._record_metadata._public_date).toBe('2026-06-10 00:00:00');
    expect(await status(user.record(mine.record_uuid))).toBe(403);
    now = new Date('2026-06-10T00:00:01Z');
    expect((await user.record(mine.record_uuid)).record_uuid).toBe(mine.record_uuid);
  });

  it('the private date makes it private again', async () => {
    const r = await publish(t.admin, 'admin@test.local', SYNTH.record(3), PRIVATE_DATE);
    expect(r._record_metadata._public_date).toBe(PRIVATE_DATE);
  });

  it('errors: missing field 400, unknown dataset or record 404, bad date 400, not the creator 403', async () => {
    const user = await t.loginAs(USER.email, USER.password);
    const before = t.digest();
    expect(
      await status(
        t.admin.request('POST', '/dataset/record/public', { form: { dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(3) } }),
      ),
    ).toBe(400);
    expect(await status(t.admin.setPublic({ user_email: 'admin@test.local', dataset_uuid: 'abc', record_uuid: SYNTH.record(3) }))).toBe(
      404,
    );
    expect(await status(publish(t.admin, 'admin@test.local', 'abc'))).toBe(404);
    expect(await status(publish(t.admin, 'admin@test.local', SYNTH.record(3), 'soonish'))).toBe(400);
    expect(await status(publish(user, USER.email, SYNTH.record(3)))).toBe(403);
    expect(t.digest()).toBe(before);
  });
});

describe('DELETE /record (bulk) and /record/{uuid}', () => {
  const del = (body: string | undefined, path = '/record', token = t.admin.token) =>
    fetch(`${t.api}${path}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });

  it('200 with {deleted, count}; the records and their children are gone', async () => {
    const a = await t.admin.createRecord(SYNTH.dataset);
    const parent = await t.admin.record(SYNTH.record(30 - 10));
    expect(await t.admin.deleteRecords([a.record_uuid, parent.record_uuid])).toEqual({
      deleted: [a.record_uuid, parent.record_uuid],
      count: 2,
    });
    expect(await status(t.admin.record(a.record_uuid))).toBe(404);
    expect(await status(t.admin.record(parent.records[0]!.record_uuid))).toBe(404);
  });

  it('the single-record variant answers the same shape', async () => {
    const a = await t.admin.createRecord(SYNTH.dataset);
    const res = await del(undefined, `/record/${a.record_uuid}`);
    expect(await res.json()).toEqual({ deleted: [a.record_uuid], count: 1 });
  });

  it('400 for a malformed body, a missing or empty record_uuids, over 100 uuids; 404 if any is unknown; nothing deleted', async () => {
    const keep = await t.admin.createRecord(SYNTH.dataset);
    const before = t.digest();
    for (const body of [
      '{"record_uuids":',
      '{}',
      '{"record_uuids":[]}',
      '{"record_uuids":"x"}',
      '[1]',
      JSON.stringify({ record_uuids: Array.from({ length: 101 }, (_, i) => `r${i}`) }),
    ]) {
      const res = await del(body);
      expect(res.status, body).toBe(400);
    }
    const res = await del(JSON.stringify({ record_uuids: [keep.record_uuid, 'doesnotexist'] }));
    expect(res.status).toBe(404);
    expect(((await res.json()) as ErrorBody).error.message).toContain('doesnotexist');
    expect((await del(JSON.stringify({ record_uuids: [keep.record_uuid] }), '/record', 'garbage')).status).toBe(401);
    expect(t.digest()).toBe(before);
  });
});

describe('POST /dataset/record (delta save)', () => {
  it('updates only the fields in the payload; others stay', async () => {
    const before = await t.admin.record(SYNTH.record(11));
    const r = await t.admin.save({ record_uuid: SYNTH.record(11), fields: [{ field_uuid: F('Long Text'), value: 'changed by save' }] });
    expect(field(r, 'Long Text')!.value).toBe('changed by save');
    const others = (x: OdrRecord) =>
      x.fields.filter((f) => f.field_uuid !== F('Long Text')).map((f) => [f.field_uuid, f.value, f.values, f.selected]);
    expect(others(r)).toEqual(others(before));
    expect(r.records).toEqual(before.records);
  });

  it('a field not yet on the record is created with id and metadata; created dates it', async () => {
    const rec = await t.admin.createRecord(SYNTH.dataset);
    now = new Date('2026-06-04T10:00:00Z');
    const r = await t.admin.save({
      record_uuid: rec.record_uuid,
      fields: [{ field_uuid: F('Medium Text'), value: 'first', created: '2019-01-01 00:00:00' }],
    });
    const f = field(r, 'Medium Text')!;
    expect(f.id).toBe(9001 + 7);
    expect(f._field_metadata).toMatchObject({
      _create_date: '2019-01-01 00:00:00',
      _update_date: '2019-01-01 00:00:00',
      _create_auth: 'Local Admin',
    });
    expect(r._record_metadata._update_date).toBe('2026-06-04 10:00:00');
  });

  it('matches fields by template_field_uuid too, and takes Boolean as selected or value', async () => {
    const r = await t.admin.save({ record_uuid: SYNTH.record(12), fields: [{ field_uuid: F('Boolean'), selected: 1 }] });
    expect(field(r, 'Boolean')!.selected).toBe(1);
    const r2 = await t.admin.save({ record_uuid: SYNTH.record(12), fields: [{ field_uuid: F('Boolean'), value: '0' }] });
    expect(field(r2, 'Boolean')!.selected).toBe(0);
  });

  it('radio values are the set of selected options; selected: 0 entries are not selected', async () => {
    const r = await t.admin.save({
      record_uuid: SYNTH.record(13),
      fields: [
        {
          field_uuid: F('Multiple Radio'),
          values: [
            { template_radio_option_uuid: O('Multiple Radio', 2) },
            { template_radio_option_uuid: O('Multiple Radio', 3), selected: 0 },
          ],
        },
      ],
    });
    expect(selected(r, 'Multiple Radio')).toEqual([O('Multiple Radio', 2)]);
    expect(
      await status(
        t.admin.save({
          record_uuid: SYNTH.record(13),
          fields: [
            {
              field_uuid: F('Single Radio'),
              values: [{ template_radio_option_uuid: O('Single Radio', 1) }, { template_radio_option_uuid: O('Single Radio', 2) }],
            },
          ],
        }),
      ),
    ).toBe(400);
  });

  it('tags: the set, with ancestors selected', async () => {
    const r = await t.admin.save({
      record_uuid: SYNTH.record(14),
      fields: [{ field_uuid: F('Tags'), tags: [{ template_tag_uuid: SYNTH.tag(12) }] }],
    });
    expect(
      field(r, 'Tags')!
        .tags!.map((x) => x.template_tag_uuid)
        .sort(),
    ).toEqual([SYNTH.tag(12), SYNTH.tag(3)].sort());
  });

  it('nested children: new ones created (record_uuid ""), existing ones updated, omitted ones untouched', async () => {
    const parent = await t.admin.record(SYNTH.record(10));
    const existing = parent.records;
    now = new Date('2026-06-05T10:00:00Z');
    const r = await t.admin.save({
      record_uuid: SYNTH.record(10),
      records: [
        {
          record_uuid: existing[0]!.record_uuid,
          database_uuid: SYNTH.child,
          fields: [{ field_uuid: SYNTH.childField(1), value: 'edited child' }],
        },
        {
          record_uuid: '',
          database_uuid: SYNTH.child,
          created: '2026-01-01 00:00:00',
          public_date: '2026-01-02 00:00:00',
          fields: [{ field_uuid: SYNTH.childField(1), value: 'new child' }],
        },
      ],
    });
    expect(r.records.length).toBe(existing.length + 1);
    expect(r.records.map((c) => c.record_uuid).slice(0, existing.length)).toEqual(existing.map((c) => c.record_uuid));
    expect(r.records[0]!.fields.find((f) => f.field_uuid === SYNTH.childField(1))!.value).toBe('edited child');
    const added = r.records.at(-1)!;
    expect(added.fields.find((f) => f.field_uuid === SYNTH.childField(1))!.value).toBe('new child');
    expect(added._record_metadata).toMatchObject({
      _create_date: '2026-01-01 00:00:00',
      _update_date: '2026-01-01 00:00:00',
      _public_date: '2026-01-02 00:00:00',
    });
    expect(r._record_metadata._update_date).toBe('2026-06-05 10:00:00');
  });

  it('record public_date in the payload sets it', async () => {
    const r = await t.admin.save({ record_uuid: SYNTH.record(15), public_date: '2025-05-05 05:05:05' });
    expect(r._record_metadata._public_date).toBe('2025-05-05 05:05:05');
  });

  it('file blocks: public_date is consumed and updates the file metadata', async () => {
    const rec = await t.admin.record(SYNTH.record(5));
    const file = field(rec, 'File')!.files![0]!;
    const r = await t.admin.save({
      record_uuid: SYNTH.record(5),
      fields: [{ field_uuid: F('File'), files: [{ file_uuid: file.file_uuid, public_date: '2030-01-01' }] }],
    });
    expect(field(r, 'File')!.files![0]!._file_metadata!._public_date).toBe('2030-01-01 00:00:00');
    expect(
      await status(
        t.admin.save({
          record_uuid: SYNTH.record(5),
          fields: [{ field_uuid: F('File'), files: [{ file_uuid: file.file_uuid, display_order: 2 }] }],
        }),
      ),
    ).toBe(400);
  });

  it('any error rejects the whole save: nothing changes', async () => {
    const before = t.digest();
    const bad = [
      {
        record_uuid: SYNTH.record(16),
        fields: [
          { field_uuid: F('Long Text'), value: 'ok' },
          { field_uuid: 'ffffffffffffffffffff00000000', value: 'x' },
        ],
      },
      {
        record_uuid: SYNTH.record(16),
        fields: [
          { field_uuid: F('Long Text'), value: 'ok' },
          { field_uuid: F('Integer'), value: 'NaN' },
        ],
      },
      {
        record_uuid: SYNTH.record(16),
        fields: [
          { field_uuid: F('Long Text'), value: 'ok' },
          { field_uuid: F('Single Radio'), value: 'x' },
        ],
      },
      {
        record_uuid: SYNTH.record(16),
        fields: [{ field_uuid: F('Long Text'), value: 'ok' }],
        records: [{ record_uuid: '', database_uuid: SYNTH.dataset }],
      },
      { record_uuid: SYNTH.record(16), records: [{ record_uuid: SYNTH.record(17), database_uuid: SYNTH.dataset }] },
      { record_uuid: SYNTH.record(16), database_uuid: SYNTH.child },
      { record_uuid: 'nosuchrecord' },
      { fields: [] },
    ];
    const codes = [];
    for (const body of bad) codes.push(await status(t.admin.request('POST', '/dataset/record', { json: body })));
    expect(codes).toEqual([404, 400, 400, 404, 400, 400, 404, 400]);
    expect(t.digest()).toBe(before);
  });
});

describe('datasets, quota and the modified-records route', () => {
  it('GET /search/databases lists datasets; POST /dataset clones a template and redirects to its first record', async () => {
    const list = await t.admin.databases();
    expect(list.databases.map((d) => d.unique_id)).toContain(SYNTH.dataset);
    const res = await fetch(`${t.api}/dataset`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.admin.token}` },
      redirect: 'manual',
      body: (() => {
        const f = new FormData();
        f.append('template_uuid', SYNTH.dataset);
        f.append('dataset_name', 'Copy');
        return f;
      })(),
    });
    expect(res.status).toBe(302);
    const rec = (await (
      await fetch(new URL(res.headers.get('location')!, t.api), { headers: { Authorization: `Bearer ${t.admin.token}` } })
    ).json()) as OdrRecord;
    expect(rec.template_uuid).toBe(SYNTH.dataset);
    const tpl = await t.admin.template(rec.database_uuid);
    expect(tpl.name).toBe('Copy');
    expect(tpl.fields.map((f) => f.template_field_uuid)).toEqual((await t.admin.template(SYNTH.dataset)).fields.map((f) => f.field_uuid));
    expect(tpl.related_databases.length).toBe(1);
    expect(await status(t.admin.request('POST', '/dataset', { form: {} }))).toBe(400);
  });

  it('quota is a string of bytes', async () => {
    expect(await t.admin.quota(SYNTH.dataset)).toEqual({ total_bytes: '0' });
    expect(await status(t.admin.quota('nope'))).toBe(404);
  });

  it('modified records since a time; the id list; an offset past the end is 400', async () => {
    now = new Date('2026-07-01T00:00:00Z');
    await t.admin.setValue(SYNTH.record(18), F('Long Text'), 'touched in July');
    const since = await t.admin.modifiedRecordIds(SYNTH.dataset, Date.parse('2026-06-30T00:00:00Z'));
    expect(since.records.map((r) => r.unique_id)).toEqual([SYNTH.record(18)]);
    expect(since.records[0]!.record_name).toBe('S-000018');
    const ids = await t.admin.recordIds(SYNTH.dataset);
    expect(ids.records.length).toBeGreaterThan(20);
    expect(await status(t.admin.recordIds(SYNTH.dataset, 10, 100_000))).toBe(400);
  });
});
