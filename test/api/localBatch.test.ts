import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_DATE } from '../../shared/dates.js';
import type { BatchResult } from '../../shared/schemas/batch.js';
import { SYNTH } from '../../bench/synthetic.js';
import { USER, startSyntheticService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startSyntheticService(40);
});
afterAll(() => t.close());

async function batch(body: unknown, token = t.admin.token!) {
  const res = await fetch(`${t.host.url}/local/datasets/${SYNTH.dataset}/batch`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as BatchResult & { error?: { code: number; message: string } } };
}
const rec = (i: number) => t.admin.record(SYNTH.record(i));
const valueOf = async (i: number, field: string) => (await rec(i)).fields.find((f) => f.field_uuid === field)?.value ?? null;
const ids = [1, 2, 3, 4, 5].map((i) => SYNTH.record(i));

describe('POST /local/datasets/{uuid}/batch', () => {
  it('sets one value across records in one step and restores each earlier value', async () => {
    const f = SYNTH.field('Medium Text');
    const was = await Promise.all([1, 2, 3, 4, 5].map((i) => valueOf(i, f)));
    const r = await batch({ records: ids, change: { kind: 'value', field: f, value: 'batch-set' } });
    expect(r.status).toBe(200);
    expect(r.body.changed).toBe(5);
    for (const i of [1, 2, 3, 4, 5]) expect(await valueOf(i, f)).toBe('batch-set');
    const undo = await batch({ change: { kind: 'restore', field: f, items: r.body.before } });
    expect(undo.body.changed).toBe(5);
    expect(await Promise.all([1, 2, 3, 4, 5].map((i) => valueOf(i, f)))).toEqual(was);
  });

  it('selects a tag and an option, and undoes both exactly', async () => {
    const tags = SYNTH.field('Tags');
    const tag = SYNTH.tag(5);
    const selectedTags = async (i: number) =>
      ((await rec(i)).fields.find((x) => x.field_uuid === tags)?.tags ?? []).map((x) => x.template_tag_uuid).sort();
    const was = await Promise.all([1, 2, 3].map(selectedTags));
    const r = await batch({ records: ids.slice(0, 3), change: { kind: 'option', field: tags, option: tag, on: true } });
    expect(r.status).toBe(200);
    for (const i of [1, 2, 3]) expect(await selectedTags(i)).toContain(tag);
    await batch({ change: { kind: 'restore', field: tags, items: r.body.before } });
    expect(await Promise.all([1, 2, 3].map(selectedTags))).toEqual(was);

    const radio = SYNTH.field('Single Radio');
    const r2 = await batch({ records: ids, change: { kind: 'option', field: radio, option: SYNTH.option('Single Radio', 2), on: true } });
    expect(r2.status).toBe(200);
    for (const i of [1, 2, 3, 4, 5])
      expect((await rec(i)).fields.find((x) => x.field_uuid === radio)?.values?.map((v) => v.template_radio_option_uuid)).toEqual([
        SYNTH.option('Single Radio', 2),
      ]);
  });

  it('public keeps the first public date of records already public; private and back by restore', async () => {
    // Synthetic records 1, 2, 4, 5 are public since 2025-01-01; 3 is private.
    const pub = await batch({ records: ids, change: { kind: 'public', public: true } });
    expect(pub.body.changed).toBe(1);
    expect((await rec(1))._record_metadata._public_date).toBe('2025-01-01 00:00:00');
    expect((await rec(3))._record_metadata._public_date).not.toBe(PRIVATE_DATE);
    const priv = await batch({ records: ids, change: { kind: 'public', public: false } });
    expect(priv.body.changed).toBe(5);
    await batch({ change: { kind: 'restore', items: priv.body.before } });
    expect((await rec(1))._record_metadata._public_date).toBe('2025-01-01 00:00:00');
    await batch({ change: { kind: 'restore', items: pub.body.before } });
    expect((await rec(3))._record_metadata._public_date).toBe(PRIVATE_DATE);
  });

  it('bumps _update_date of the records it changed and only those', async () => {
    // Synthetic records 12 and 15 are private, 11, 13 and 14 public since the generator's stamp.
    const nums = [11, 12, 13, 14, 15];
    const dateOf = async (i: number) => (await rec(i))._record_metadata._update_date;
    const was = await Promise.all(nums.map(dateOf));
    const r = await batch({ records: nums.map((i) => SYNTH.record(i)), change: { kind: 'public', public: true } });
    expect(r.body.changed).toBe(2);
    const now = await Promise.all(nums.map(dateOf));
    nums.forEach((i, k) => {
      if (i % 3 === 0) expect(now[k], `record ${i}`).not.toBe(was[k]);
      else expect(now[k], `record ${i}`).toBe(was[k]);
    });
  });

  it('refuses bad input with a clear error and changes nothing', async () => {
    const f = SYNTH.field('Integer');
    const was = await valueOf(6, f);
    const digest = t.digest();
    const cases: [unknown, number, string][] = [
      [{ records: [SYNTH.record(6)], change: { kind: 'value', field: f, value: '12abc' } }, 400, 'not an integer'],
      [{ records: [SYNTH.record(6), 'ffffffffffffffffffffffffffff'], change: { kind: 'value', field: f, value: 7 } }, 404, ''],
      [{ records: [SYNTH.record(6), SYNTH.record(6)], change: { kind: 'value', field: f, value: 7 } }, 400, 'twice'],
      [{ records: [SYNTH.record(6)], change: { kind: 'value', field: 'nope', value: 7 } }, 400, 'not a field'],
      [{ records: [], change: { kind: 'value', field: f, value: 7 } }, 400, 'at least one'],
      [{ records: [SYNTH.record(6)], change: { kind: 'explode' } }, 400, 'kind'],
      [{ records: [SYNTH.record(6)], change: { kind: 'option', field: f, option: 'x', on: true } }, 400, 'no options'],
      [{ records: [SYNTH.childRecord(10, 1)], change: { kind: 'value', field: f, value: 7 } }, 400, ''],
    ];
    for (const [body, status, words] of cases) {
      const r = await batch(body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.error?.message ?? '', JSON.stringify(body)).toContain(words);
    }
    expect(await valueOf(6, f)).toEqual(was);
    expect(t.digest()).toBe(digest);
  });

  it('checks the edit right on every record before writing: one refused record, nothing changed', async () => {
    const other = t.client();
    await other.login(USER.email, USER.password);
    const f = SYNTH.field('Medium Text');
    const was = await valueOf(7, f);
    const digest = t.digest();
    // Record 9 is private and not theirs; 7 alone they may not edit either (not the owner).
    const r = await batch(
      { records: [SYNTH.record(7), SYNTH.record(9)], change: { kind: 'value', field: f, value: 'intruder' } },
      other.token!,
    );
    expect([403, 404]).toContain(r.status);
    expect(await valueOf(7, f)).toEqual(was);
    expect(t.digest()).toBe(digest);
  });

  it('a restore puts back every record still holding what the batch left; one deleted or changed since is skipped and named', async () => {
    const f = SYNTH.field('Long Text');
    const nums = [20, 21, 22, 23];
    const was = await Promise.all(nums.map((i) => valueOf(i, f)));
    const r = await batch({ records: nums.map((i) => SYNTH.record(i)), change: { kind: 'value', field: f, value: 'batched' } });
    expect(r.body.changed).toBe(4);
    expect(r.body.before[0]!.after).toEqual({ value: 'batched' });
    // Since the batch: record 21 deleted, record 22 given a newer value (a sync, a script).
    await t.admin.deleteRecords([SYNTH.record(21)]);
    await t.admin.setValue(SYNTH.record(22), f, 'newer');

    const undo = await batch({ change: { kind: 'restore', field: f, items: r.body.before } });
    expect(undo.status).toBe(200);
    expect(undo.body.changed).toBe(2);
    expect(undo.body.skipped).toEqual([
      { record: SYNTH.record(21), reason: 'deleted', message: `Record ${SYNTH.record(21)} was deleted since` },
      {
        record: SYNTH.record(22),
        reason: 'changed',
        message: `Record ${SYNTH.record(22)} holds value "newer" now, not the value "batched" the batch left`,
      },
    ]);
    expect(await valueOf(20, f)).toEqual(was[0]);
    expect(await valueOf(23, f)).toEqual(was[3]);
    expect(await valueOf(22, f)).toBe('newer');
  });

  it('a restore compares values as the single-edit undo does: "1.50" rewritten from 1.5 is no change', async () => {
    const dec = SYNTH.field('Decimal');
    const two = [30, 31].map((i) => SYNTH.record(i));
    const r = await batch({ records: two, change: { kind: 'value', field: dec, value: '1.5' } });
    expect(r.body.changed).toBe(2);
    // A pull (or another client) writes the same number as typed elsewhere.
    await t.admin.setValue(SYNTH.record(30), dec, '1.50');
    expect(await valueOf(30, dec)).toBe('1.50');
    const undo = await batch({ change: { kind: 'restore', field: dec, items: r.body.before } });
    expect(undo.body.skipped).toEqual([]);
    expect(undo.body.changed).toBe(2);
  });

  it('a restore of options skips a record whose selection changed since, compared as a set', async () => {
    const radio = SYNTH.field('Single Radio');
    const opt = (n: number) => SYNTH.option('Single Radio', n);
    const r = await batch({
      records: [SYNTH.record(24), SYNTH.record(25)],
      change: { kind: 'option', field: radio, option: opt(3), on: true },
    });
    const changed = r.body.before.map((b) => b.record);
    await t.admin.setOption(SYNTH.record(25), radio, opt(1), true);
    const undo = await batch({ change: { kind: 'restore', field: radio, items: r.body.before } });
    expect(undo.status).toBe(200);
    expect(undo.body.skipped?.map((s) => [s.record, s.reason])).toEqual(
      changed.includes(SYNTH.record(25)) ? [[SYNTH.record(25), 'changed']] : [],
    );
    const sel = (await rec(25)).fields.find((x) => x.field_uuid === radio)?.values?.map((v) => v.template_radio_option_uuid);
    expect(sel).toEqual([opt(1)]);
  });
});
