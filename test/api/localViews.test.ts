import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { ViewFilter } from '../../shared/schemas/view.js';
import { PRIVATE_DATE } from '../../shared/dates.js';
import { USER, startService, startSyntheticService, type TestService } from '../support/service.js';

// Filters, saved searches and column layouts of the record list, over real HTTP. Each filter's
// answer is checked against the same records filtered in JavaScript from their JSON.

const N = 60;
let t: TestService;
let userToken: string;
let all: OdrRecord[];
beforeAll(async () => {
  t = await startSyntheticService(N, { keepDir: true });
  userToken = (await t.loginAs(USER.email, USER.password)).token!;
  all = ((await call('GET', `/datasets/${SYNTH.dataset}/records?limit=500`)).body as { records: OdrRecord[] }).records;
});
afterAll(() => t.close());

async function call(method: string, path: string, body?: unknown, token: string | null = t.admin.token ?? null) {
  const res = await fetch(`${t.host.url}/local${path}`, {
    method,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: (text ? JSON.parse(text) : null) as Record<string, unknown> & { error?: { code: number; message: string } },
  };
}

const filtered = async (filters: ViewFilter[], extra = '') => {
  const r = await call('GET', `/datasets/${SYNTH.dataset}/record-uuids?filters=${encodeURIComponent(JSON.stringify(filters))}${extra}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.uuids as string[];
};
const entry = (r: OdrRecord, field: string) => r.fields.find((f) => f.field_uuid === field);
const where = (pred: (r: OdrRecord) => boolean) => all.filter(pred).map((r) => r.record_uuid);

describe('per-field filters on the record list', () => {
  it('text contains, case-insensitive', async () => {
    const f = SYNTH.field('Medium Text');
    const want = where((r) =>
      String(entry(r, f)?.value ?? '')
        .toLowerCase()
        .includes('basalt'),
    );
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(N);
    expect(await filtered([{ kind: 'text', field: f, contains: 'BASALT' }])).toEqual(want);
  });

  it('number and date ranges, each bound inclusive and optional', async () => {
    const i = SYNTH.field('Integer');
    const num = (r: OdrRecord) => Number(entry(r, i)?.value);
    expect(await filtered([{ kind: 'range', field: i, min: '10000', max: '60000' }])).toEqual(
      where((r) => num(r) >= 10000 && num(r) <= 60000),
    );
    expect(await filtered([{ kind: 'range', field: i, max: '-1' }])).toEqual(where((r) => num(r) <= -1));
    const dec = SYNTH.field('Decimal');
    expect(await filtered([{ kind: 'range', field: dec, min: '-10.5' }])).toEqual(where((r) => Number(entry(r, dec)?.value) >= -10.5));
    const d = SYNTH.field('DateTime');
    const date = (r: OdrRecord) => String(entry(r, d)?.value ?? '');
    const want = where((r) => date(r) >= '2015-01-01' && date(r) <= '2019-12-31');
    expect(want.length).toBeGreaterThan(0);
    expect(await filtered([{ kind: 'range', field: d, min: '2015-01-01', max: '2019-12-31' }])).toEqual(want);
  });

  it('option is / is not, tags with their descendants', async () => {
    const f = SYNTH.field('Single Select');
    const o = SYNTH.option('Single Select', 2);
    const has = (r: OdrRecord) => !!entry(r, f)?.values?.some((v) => v.template_radio_option_uuid === o);
    expect(await filtered([{ kind: 'option', field: f, options: [o] }])).toEqual(where(has));
    expect(await filtered([{ kind: 'option', field: f, options: [o], not: true }])).toEqual(where((r) => !has(r)));
    const tags = SYNTH.field('Tags');
    // Group 1's child tags count as Group 1.
    const inGroup1 = (r: OdrRecord) => !!entry(r, tags)?.tags?.some((x) => x.name.startsWith('Group 1'));
    expect(await filtered([{ kind: 'option', field: tags, options: [SYNTH.tag(1)] }])).toEqual(where(inGroup1));
  });

  it('has a file / has none, public / private', async () => {
    const f = SYNTH.field('File');
    const hasFile = (r: OdrRecord) => (entry(r, f)?.files?.length ?? 0) > 0;
    expect(await filtered([{ kind: 'file', field: f, has: true }])).toEqual(where(hasFile));
    expect(await filtered([{ kind: 'file', field: f, has: false }])).toEqual(where((r) => !hasFile(r)));
    const isPrivate = (r: OdrRecord) => r._record_metadata._public_date === PRIVATE_DATE;
    expect(await filtered([{ kind: 'public', public: false }])).toEqual(where(isPrivate));
    expect(await filtered([{ kind: 'public', public: true }])).toEqual(where((r) => !isPrivate(r)));
  });

  it('combine with each other, with full-text search and sort; the table page counts the matches', async () => {
    const i = SYNTH.field('Integer');
    const filters: ViewFilter[] = [
      { kind: 'public', public: true },
      { kind: 'range', field: i, min: '0' },
    ];
    const want = all
      .filter((r) => r._record_metadata._public_date !== PRIVATE_DATE && Number(entry(r, i)?.value) >= 0)
      .sort((a, b) => Number(entry(b, i)?.value) - Number(entry(a, i)?.value))
      .map((r) => r.record_uuid);
    expect(await filtered(filters, `&sort=${i}&dir=desc`)).toEqual(want);
    const q = 'S-00001'; // S-000010 … S-000019
    const page = await call(
      'GET',
      `/datasets/${SYNTH.dataset}/records?q=${q}&limit=3&filters=${encodeURIComponent(JSON.stringify(filters))}`,
    );
    // Unsorted: storage order, as `all` is.
    const both = where((r) => want.includes(r.record_uuid) && String(r.record_name).startsWith(q));
    expect(both.length).toBeGreaterThan(0);
    expect(page.body.total).toBe(both.length);
    expect((page.body.records as OdrRecord[]).map((r) => r.record_uuid)).toEqual(both.slice(0, 3));
  });

  it('refuse bad filters with a 400 naming the problem (every list route alike)', async () => {
    const bad: [unknown, string][] = [
      ['not json', 'JSON array'],
      [{ kind: 'text' }, 'filters'],
      [[{ kind: 'nope' }], 'kind must be one of'],
      [[{ kind: 'text', field: 'zzz', contains: 'a' }], 'filters[0].field: zzz is not a field'],
      [[{ kind: 'text', field: SYNTH.field('Integer'), contains: 'a' }], 'not a text field'],
      [[{ kind: 'range', field: SYNTH.field('Integer') }], 'needs min or max'],
      [[{ kind: 'range', field: SYNTH.field('Integer'), min: 'five' }], 'filters[0].min: "five" is not a number'],
      [[{ kind: 'range', field: SYNTH.field('DateTime'), max: '2020-13' }], 'is not a date'],
      [[{ kind: 'range', field: SYNTH.field('Medium Text'), min: '1' }], 'not a number or date field'],
      [[{ kind: 'option', field: SYNTH.field('Single Select'), options: ['nope'] }], 'nope is not an option'],
      [[{ kind: 'option', field: SYNTH.field('Tags'), options: [] }], 'at least one'],
      [[{ kind: 'file', field: SYNTH.field('Integer'), has: true }], 'not a file or image field'],
      [Array.from({ length: 51 }, () => ({ kind: 'public', public: true })), 'at most 50'],
    ];
    for (const route of ['records', 'record-uuids', `position/${SYNTH.record(1)}`]) {
      for (const [flt, word] of bad) {
        const raw = typeof flt === 'string' ? flt : JSON.stringify(flt);
        const r = await call('GET', `/datasets/${SYNTH.dataset}/${route}?filters=${encodeURIComponent(raw)}`);
        expect(r.status, `${route} ${raw}`).toBe(400);
        expect(r.body.error?.code).toBe(400);
        expect(r.body.error?.message, raw).toContain(word);
      }
    }
  });
});

describe('saved searches', () => {
  const path = `/datasets/${SYNTH.dataset}/saved-searches`;
  const view = { q: 'basalt', filters: [{ kind: 'public', public: true }], sort: SYNTH.field('Integer'), dir: 'desc' };

  it('are saved, listed by name per user, and deleted only by their owner', async () => {
    const a = await call('POST', path, { name: 'Public basalt', view });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ name: 'Public basalt', dataset_uuid: SYNTH.dataset, view });
    const b = await call('POST', path, { name: '  Another  ', view: {} });
    expect(b.body.name).toBe('Another');
    const list = await call('GET', path);
    expect((list.body.searches as { name: string }[]).map((s) => s.name)).toEqual(['Another', 'Public basalt']);
    // Another user sees none of them and cannot delete them.
    expect((await call('GET', path, undefined, userToken)).body.searches).toEqual([]);
    const before = t.digest();
    const theirs = await call('DELETE', `/saved-searches/${a.body.id as number}`, undefined, userToken);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error?.message).toContain('Saved search');
    expect(t.digest()).toBe(before);
    expect((await call('DELETE', `/saved-searches/${b.body.id as number}`)).body).toEqual({ deleted: b.body.id });
    expect((await call('GET', path)).body.searches).toHaveLength(1);
  });

  it('refuse bad input with a 400 naming it, and change nothing', async () => {
    const before = t.digest();
    const bad: [unknown, number, string][] = [
      ['{', 400, 'not valid JSON'],
      [[], 400, 'JSON object'],
      [{ view: {} }, 400, 'name'],
      [{ name: '   ', view: {} }, 400, 'name must not be empty'],
      [{ name: 'x'.repeat(121), view: {} }, 400, 'longer than 120'],
      [{ name: 'x', view: { filters: [{ kind: 'text', field: 'nope', contains: 'a' }] } }, 400, 'nope is not a field'],
      [{ name: 'x', view: { sort: 'nope' } }, 400, 'view.sort: nope'],
      [{ name: 'x', view: { dir: 'up' } }, 400, 'dir'],
    ];
    for (const [body, status, word] of bad) {
      const r = await call('POST', path, body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.error?.message, JSON.stringify(body)).toContain(word);
    }
    expect((await call('DELETE', '/saved-searches/abc')).status).toBe(400);
    expect((await call('DELETE', '/saved-searches/999999')).status).toBe(404);
    expect((await call('POST', '/datasets/ffffffffffffffffffffffffffff/saved-searches', { name: 'x', view: {} })).status).toBe(404);
    expect((await call('POST', path, { name: 'x', view: {} }, null)).status).toBe(401);
    expect((await call('GET', path, undefined, null)).status).toBe(401);
    expect(t.digest()).toBe(before);
  });
});

describe('column layouts', () => {
  const path = `/datasets/${SYNTH.dataset}/columns`;
  it('are null until chosen, then kept per user', async () => {
    expect((await call('GET', path)).body).toEqual({ layout: null });
    const layout = { columns: [{ key: SYNTH.field('Integer'), width: 180 }, { key: '_id' }, { key: SYNTH.field('Tags'), width: 90 }] };
    expect((await call('PUT', path, layout)).body).toEqual({ layout });
    expect((await call('GET', path)).body).toEqual({ layout });
    expect((await call('GET', path, undefined, userToken)).body).toEqual({ layout: null });
    // Forgetting one user's layout leaves the other's.
    await call('PUT', path, layout, userToken);
    expect((await call('DELETE', path, undefined, userToken)).body).toEqual({ layout: null });
    expect((await call('GET', path, undefined, userToken)).body).toEqual({ layout: null });
    expect((await call('GET', path)).body).toEqual({ layout });
    expect((await call('DELETE', path, undefined, null)).status).toBe(401);
  });

  it('refuse unknown or repeated fields and bad widths, changing nothing', async () => {
    const before = t.digest();
    for (const [columns, word] of [
      [[{ key: 'nope' }], 'columns[0].key: nope is not a field'],
      [[{ key: '_id' }, { key: '_id' }], 'listed twice'],
      [[{ key: '_id', width: 10 }], 'at least 60'],
      [[{ key: '_id', width: 1.5 }], 'integer'],
      ['x', 'columns'],
    ] as const) {
      const r = await call('PUT', path, { columns });
      expect(r.status, JSON.stringify(columns)).toBe(400);
      expect(r.body.error?.message).toContain(word);
    }
    expect((await call('PUT', path, { columns: [] }, null)).status).toBe(401);
    expect(t.digest()).toBe(before);
  });
});

describe('after a restart', () => {
  it('saved searches and column layouts are still there', async () => {
    const searches = (await call('GET', `/datasets/${SYNTH.dataset}/saved-searches`)).body;
    const columns = (await call('GET', `/datasets/${SYNTH.dataset}/columns`)).body;
    expect(columns.layout).not.toBeNull();
    await t.close();
    t = await startService({ dataDir: t.dataDir });
    expect((await call('GET', `/datasets/${SYNTH.dataset}/saved-searches`)).body).toEqual(searches);
    expect((await call('GET', `/datasets/${SYNTH.dataset}/columns`)).body).toEqual(columns);
  });
});
