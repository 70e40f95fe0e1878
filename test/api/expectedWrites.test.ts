import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { OdrApiError } from '../../shared/client/odrClient.js';
import { ChangedSinceBody, ErrorBody } from '../../shared/schemas/common.js';
import { ADMIN, startSyntheticService, type TestService } from '../support/service.js';

// `expected_value` on the value route and `?expected=` on the option route, over real HTTP: the
// write applies only if the field holds what the caller saw (what an undo's step left), else 409
// naming what it holds now, and nothing changes. The renderer's undo sends them.
let t: TestService;
beforeAll(async () => {
  t = await startSyntheticService(8);
});
afterAll(() => t.close());

const REC = SYNTH.record(3);
const F = SYNTH.field;

/**
 * The write is refused with 409 and `reason: "changed_since"` (what clients read, never the
 * wording), names what the field holds, and leaves every table as it was. Answers the message;
 * `holds` is kept in `lastHolds`.
 */
let lastHolds: unknown;
async function conflict(write: () => Promise<unknown>): Promise<string> {
  const before = t.digest();
  const e = await write().then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(OdrApiError);
  expect((e as OdrApiError).status).toBe(409);
  expect(t.digest()).toBe(before);
  const error = ChangedSinceBody.parse((e as OdrApiError).body).error;
  expect(error.reason).toBe('changed_since');
  lastHolds = error.holds;
  return error.message;
}

const value = (r: { fields: { field_uuid: string; value?: unknown }[] }, f: string) => r.fields.find((x) => x.field_uuid === f)?.value;

describe('POST /record/{r}/{f}/value with expected_value', () => {
  it('writes when the field holds the expected value, and refuses with 409 naming the newer one otherwise', async () => {
    const text = F('Medium Text');
    await t.admin.setValue(REC, text, 'set by the step');
    // A newer value arrives (a sync, a script, another window)...
    await t.admin.setValue(REC, text, 'newer');
    // ...so the undo expecting what its step set is refused and the newer value stays.
    const m = await conflict(() => t.admin.setValue(REC, text, 'the old value', 'set by the step'));
    expect(m).toBe(
      `Record ${REC}, field ${text} "Medium Text field" (Medium Text) holds "newer" now, not the expected "set by the step": nothing was changed`,
    );
    expect(lastHolds).toBe('newer');
    expect(value(await t.admin.record(REC), text)).toBe('newer');
    const ok = await t.admin.setValue(REC, text, 'undone', 'newer');
    expect(value(ok, text)).toBe('undone');
  });

  it('compares as stored: "1.50" is 1.5, "" and null are empty, an unchecked Boolean is empty', async () => {
    await t.admin.setValue(REC, F('Decimal'), '1.5');
    await t.admin.setValue(REC, F('Decimal'), '2', '1.50');
    await t.admin.setValue(REC, F('Integer'), '');
    await t.admin.setValue(REC, F('Integer'), 7, null);
    await t.admin.setValue(REC, F('Integer'), '', 7);
    await t.admin.setValue(REC, F('Boolean'), 0);
    await t.admin.setValue(REC, F('Boolean'), 1, 0);
    const m = await conflict(() => t.admin.setValue(REC, F('Boolean'), 1, 0));
    expect(m).toMatch(/holds "1" now, not the expected nothing \(empty\)/);
    expect(lastHolds).toBe('1');
    const e = await conflict(() => t.admin.setValue(REC, F('Integer'), 3, 4));
    expect(e).toMatch(/holds nothing \(empty\) now, not the expected "4"/);
    expect(lastHolds).toBeNull();
  });

  it('an expected value the field could not hold is a 400 naming it, and nothing changes', async () => {
    const before = t.digest();
    const res = await fetch(`${t.api}/record/${REC}/${F('Integer')}/value`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.admin.token!}`, 'content-type': 'application/json' },
      body: JSON.stringify({ value: 1, expected_value: 'many' }),
    });
    expect(res.status).toBe(400);
    expect(ErrorBody.parse(await res.json()).error.message).toBe(
      `Record ${REC}, field ${F('Integer')} "Integer field" (Integer): expected_value: Invalid Integer value: "many" is not an integer`,
    );
    expect(t.digest()).toBe(before);
  });
});

describe('PUT /record/{r}/{f}/{option}/{state}?expected=', () => {
  const radio = F('Single Radio');
  const opt = (n: number) => SYNTH.option('Single Radio', n);

  it('a single radio changes only while its selection is exactly the expected one', async () => {
    await t.admin.setOption(REC, radio, opt(1), true);
    await t.admin.setOption(REC, radio, opt(2), true, [opt(1)]);
    const m = await conflict(() => t.admin.setOption(REC, radio, opt(1), true, [opt(1)]));
    expect(m).toBe(
      `Record ${REC}, field ${radio} "Single Radio field" (Single Radio) has ${opt(2)} selected now, not the expected ${opt(1)}: nothing was changed`,
    );
    expect(lastHolds).toEqual([opt(2)]);
    await t.admin.setOption(REC, radio, opt(2), false, [opt(2)]);
    await conflict(() => t.admin.setOption(REC, radio, opt(3), true, [opt(2)]));
    await t.admin.setOption(REC, radio, opt(3), true, []);
  });

  it('tags compare the whole selection, in any order', async () => {
    const tags = F('Tags');
    const rec = SYNTH.record(5);
    const now = (await t.admin.record(rec)).fields.find((x) => x.field_uuid === tags) as { tags?: { template_tag_uuid: string }[] };
    const held = (now.tags ?? []).map((x) => x.template_tag_uuid);
    const extra = [4, 5, 6, 7].map((n) => SYNTH.tag(n)).find((u) => !held.includes(u))!;
    await t.admin.setOption(rec, tags, extra, true, [...held].reverse());
    const m = await conflict(() => t.admin.setOption(rec, tags, extra, false, held));
    expect(m).toContain(' selected now, not the expected ');
    expect(lastHolds).toEqual([...held, extra].sort());
    await t.admin.setOption(rec, tags, extra, false, [extra, ...held]);
  });
});

describe('POST /dataset/record/public with expected_public_date', () => {
  const rec = SYNTH.record(4);
  const publicOf = async () => (await t.admin.record(rec))._record_metadata._public_date;
  const setPublic = (public_date: string, expected_public_date?: string) =>
    t.admin.setPublic({
      user_email: ADMIN.email,
      dataset_uuid: SYNTH.dataset,
      record_uuid: rec,
      public_date,
      ...(expected_public_date === undefined ? {} : { expected_public_date }),
    });

  it('sets the date only while the record has the expected one, else 409 naming the date it has', async () => {
    const was = await publicOf();
    await setPublic('2031-02-03 04:05:06', was);
    expect(await publicOf()).toBe('2031-02-03 04:05:06');
    const m = await conflict(() => setPublic('2032-01-01 00:00:00', was));
    expect(m).toBe(`Record ${rec} has the public date 2031-02-03 04:05:06 now, not the expected ${was}: nothing was changed`);
    expect(lastHolds).toBe('2031-02-03 04:05:06');
    // Any date form the route takes is compared as stored.
    await setPublic('2033-01-01 00:00:00', '2031-02-03T04:05:06');
    expect(await publicOf()).toBe('2033-01-01 00:00:00');
  });

  it('an expected date that is no date is a 400 naming it, and nothing changes', async () => {
    const before = t.digest();
    const e = await setPublic('2034-01-01 00:00:00', 'yesterday-ish').then(
      () => null,
      (x: unknown) => x as OdrApiError,
    );
    expect(e?.status).toBe(400);
    expect(ErrorBody.parse(e?.body).error.message).toBe(
      'expected_public_date "yesterday-ish" is not a date (use YYYY-MM-DD, YYYY-MM-DD HH:MM:SS or ISO 8601)',
    );
    expect(t.digest()).toBe(before);
  });

  it('an expected date relative to now ("now", "+1 day") is a 400 saying so, and nothing changes', async () => {
    const before = t.digest();
    for (const relative of ['now', '+1 day', 'NOW ']) {
      const e = await setPublic('2035-01-01 00:00:00', relative).then(
        () => null,
        (x: unknown) => x as OdrApiError,
      );
      expect(e?.status).toBe(400);
      expect(ErrorBody.parse(e?.body).error.message).toBe(
        `expected_public_date "${relative}" is relative: name the date the record has (YYYY-MM-DD HH:MM:SS or ISO 8601)`,
      );
    }
    expect(t.digest()).toBe(before);
  });
});
