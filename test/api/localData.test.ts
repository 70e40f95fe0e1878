import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { SYNTH } from '../../bench/synthetic.js';
import { FIELD_TYPES, FIELD_TYPE_NAMES } from '../../shared/fieldTypes.js';
import { USER, startSyntheticService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startSyntheticService(60);
});
afterAll(() => t.close());

async function table(query: Record<string, string | number>, token = t.admin.token) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const res = await fetch(`${t.host.url}/local/datasets/${SYNTH.dataset}/records?${qs}`, { headers: { Authorization: `Bearer ${token}` } });
  return {
    status: res.status,
    body: (await res.json()) as { total: number; records: OdrRecord[]; error?: { code: number; message: string } },
  };
}
const uuids = (r: { records: OdrRecord[] }) => r.records.map((x) => x.record_uuid);

describe('GET /local/datasets', () => {
  it('lists datasets with record counts and last change', async () => {
    const res = await fetch(`${t.host.url}/local/datasets`, { headers: { Authorization: `Bearer ${t.admin.token}` } });
    const { datasets } = (await res.json()) as { datasets: { uuid: string; name: string; records: number; updated: string }[] };
    expect(datasets.find((d) => d.uuid === SYNTH.dataset)).toMatchObject({ name: 'Synthetic Samples', records: 60 });
    expect((await fetch(`${t.host.url}/local/datasets`)).status).toBe(401);
    // The last change follows an edit (child records are not counted: 60 top-level ones only).
    await t.admin.setValue(SYNTH.record(3), SYNTH.field('Long Text'), 'the newest change');
    const edited = (await t.admin.record(SYNTH.record(3))) as OdrRecord;
    const again = (await (
      await fetch(`${t.host.url}/local/datasets`, { headers: { Authorization: `Bearer ${t.admin.token}` } })
    ).json()) as {
      datasets: { uuid: string; records: number; updated: string }[];
    };
    const mine = again.datasets.find((d) => d.uuid === SYNTH.dataset)!;
    expect(mine.records).toBe(60);
    expect(mine.updated).toBe(edited._record_metadata._update_date);
    expect(mine.updated > datasets.find((d) => d.uuid === SYNTH.dataset)!.updated).toBe(true);
  });
});

describe('GET /local/datasets/{uuid}/records (table: search, sort, page)', () => {
  it('pages in storage order with a total', async () => {
    const a = await table({ offset: 0, limit: 10 });
    const b = await table({ offset: 10, limit: 10 });
    expect(a.body.total).toBe(60);
    expect(uuids(a.body)).toEqual(Array.from({ length: 10 }, (_, i) => SYNTH.record(i)));
    expect(uuids(b.body)[0]).toBe(SYNTH.record(10));
  });

  it('finds a word just written (read-your-writes) by prefix, case- and accent-insensitive', async () => {
    await t.admin.setValue(SYNTH.record(42), SYNTH.field('Long Text'), 'Zanzibarite-rich Séquencé near Glen Qwertyridon');
    for (const q of ['zanzibarite', 'sequence', 'glen qwerty', 'QWERTYRIDON']) {
      const r = await table({ q });
      expect(uuids(r.body), q).toEqual([SYNTH.record(42)]);
    }
    expect((await table({ q: 'zanzibarite xylophonequark' })).body.total).toBe(0);
    // FTS syntax in user input is taken literally, never as operators.
    expect((await table({ q: '"OR* NEAR(' })).status).toBe(200);
    await t.admin.setValue(SYNTH.record(42), SYNTH.field('Long Text'), 'replaced');
    expect((await table({ q: 'zanzibarite' })).body.total).toBe(0);
  });

  it('finds selected option names and drops deleted records at once', async () => {
    const opt = SYNTH.option('Single Select', 3);
    await t.admin.setOption(SYNTH.record(7), SYNTH.field('Single Select'), opt, true);
    const found = await table({ q: 'Single Select option 3' });
    expect(uuids(found.body)).toContain(SYNTH.record(7));
    await t.admin.deleteRecords([SYNTH.record(7)]);
    expect(uuids((await table({ q: 'Single Select option 3' })).body)).not.toContain(SYNTH.record(7));
  });

  it('sorts numbers numerically in both directions, empty values last', async () => {
    const f = SYNTH.field('Integer');
    await t.admin.setValue(SYNTH.record(1), f, 2000000000);
    await t.admin.setValue(SYNTH.record(2), f, -2000000000);
    await t.admin.setValue(SYNTH.record(3), f, '');
    const asc = await table({ sort: f, dir: 'asc', limit: 500 });
    const desc = await table({ sort: f, dir: 'desc', limit: 500 });
    const val = (r: OdrRecord) => r.fields.find((x) => x.field_uuid === f)?.value;
    const ascVals = asc.body.records.map(val).filter((v) => v !== undefined && v !== '' && v !== null) as number[];
    expect(ascVals).toEqual([...ascVals].sort((a, b) => a - b));
    expect(uuids(asc.body)[0]).toBe(SYNTH.record(2));
    expect(uuids(desc.body)[0]).toBe(SYNTH.record(1));
    expect(uuids(asc.body).at(-1)).toBe(uuids(desc.body).at(-1));
  });

  it('answers bad parameters with 400 and the error body', async () => {
    for (const q of [{ sort: 'nope' }, { dir: 'up' }, { limit: 'ten' }, { sort: SYNTH.field('File') }] as Record<string, string>[]) {
      const r = await table(q);
      expect(r.status, JSON.stringify(q)).toBe(400);
      expect(r.body.error?.code).toBe(400);
    }
  });

  it('sorts exactly the field types shared/fieldTypes.ts marks sortable (the real server list)', async () => {
    const seen: Record<string, number> = {};
    for (const name of FIELD_TYPE_NAMES) seen[name] = (await table({ sort: SYNTH.field(name), limit: 1 })).status;
    const expected = Object.fromEntries(FIELD_TYPE_NAMES.map((n) => [n, FIELD_TYPES[n].sortable ? 200 : 400]));
    expect(seen).toEqual(expected);
    // The real server's "sort?" column (reference §4.1): multi-value options, tags, booleans,
    // files and static text never sort.
    for (const n of ['Multiple Radio', 'Multiple Select', 'Tags', 'Boolean', 'Markdown', 'File', 'Image', 'XYZ Data'] as const) {
      expect(FIELD_TYPES[n].sortable, n).toBe(false);
    }
  });

  it('shows other users only public records and their own', async () => {
    const user = await t.loginAs(USER.email, USER.password);
    const r = await table({ limit: 500 }, user.token);
    const now = new Date().toISOString().replace('T', ' ').slice(0, 19);
    const all = await table({ limit: 500 });
    const visible = all.body.records.filter((x) => x._record_metadata._public_date <= now).map((x) => x.record_uuid);
    expect(uuids(r.body).sort()).toEqual(visible.sort());
  });
});
