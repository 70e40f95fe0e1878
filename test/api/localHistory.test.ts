import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordHistory } from '../../shared/schemas/history.js';
import { SYNTH } from '../../bench/synthetic.js';
import { USER, startSyntheticService, type TestService } from '../support/service.js';

// GET /local/records/{uuid}/history over real HTTP: the change log read back per record tree,
// gated like a record read.
let t: TestService;
beforeAll(async () => {
  t = await startSyntheticService(30);
});
afterAll(() => t.close());

async function history(uuid: string, query = '', token: string | undefined = t.admin.token!) {
  const res = await fetch(`${t.host.url}/local/records/${uuid}/history${query}`, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  return { status: res.status, body: (await res.json()) as RecordHistory & { error?: { code: number; message: string } } };
}

const text = SYNTH.field('Medium Text');
const radio = SYNTH.field('Single Radio');

describe('GET /local/records/{uuid}/history', () => {
  it('answers who changed which field when, old and new, newest first, child records included', async () => {
    const rec = SYNTH.record(10);
    await t.admin.setValue(rec, text, 'first');
    await t.admin.setValue(rec, text, 'second');
    // Two options in turn: whichever was selected before, one of them is a change.
    await t.admin.setOption(rec, radio, SYNTH.option('Single Radio', 1), true);
    await t.admin.setOption(rec, radio, SYNTH.option('Single Radio', 2), true);
    await t.admin.setValue(SYNTH.childRecord(10, 0), SYNTH.childField(1), 'child edit');

    const r = await history(rec);
    expect(r.status).toBe(200);
    const h = RecordHistory.strict().parse(r.body);
    expect(h.record_uuid).toBe(rec);
    const seqs = h.entries.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    const [child, ...rest] = h.entries;
    expect(child).toMatchObject({ op: 'value.set', record_uuid: SYNTH.childRecord(10, 0), new: 'child edit' });
    expect(child!.user?.email).toBe('admin@test.local');
    const texts = rest.filter((e) => e.field_uuid === text);
    expect(texts.slice(0, 2).map((e) => [e.old, e.new])).toEqual([
      ['first', 'second'],
      [expect.anything(), 'first'],
    ]);
    expect(rest.some((e) => e.op === 'option.select' && e.item_uuid === SYNTH.option('Single Radio', 2))).toBe(true);
    expect(h.entries.every((e) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(e.at))).toBe(true);

    // One field only; paging with limit and before.
    const only = await history(rec, `?field=${text}`);
    expect(only.body.entries.length).toBeGreaterThanOrEqual(2);
    expect(only.body.entries.every((e) => e.field_uuid === text)).toBe(true);
    const first = await history(rec, '?limit=1');
    expect(first.body.entries).toHaveLength(1);
    expect(first.body.more).toBe(true);
    const next = await history(rec, `?limit=1&before=${first.body.entries[0]!.seq}`);
    expect(next.body.entries[0]!.seq).toBeLessThan(first.body.entries[0]!.seq);

    // A child record's history holds its own changes, not its parent's.
    const c = await history(SYNTH.childRecord(10, 0));
    expect(c.status).toBe(200);
    expect(c.body.entries.length).toBeGreaterThan(0);
    expect(c.body.entries.every((e) => e.record_uuid === SYNTH.childRecord(10, 0))).toBe(true);
  });

  it('is gated like a record read: no token 401, unknown 404, unreadable 403/404', async () => {
    expect((await history(SYNTH.record(10), '', '')).status).toBe(401);
    const unknown = await history('ffffffffffffffffffffffffffff');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.message).toBeTruthy();
    const other = await t.loginAs(USER.email, USER.password);
    // Record 9 is private and not theirs; record 30 is private and so is, through it, its child.
    await t.admin.setValue(SYNTH.record(9), text, 'secret');
    for (const uuid of [SYNTH.record(9), SYNTH.childRecord(30, 0)]) {
      const r = await history(uuid, '', other.token!);
      expect([403, 404], uuid).toContain(r.status);
      expect(JSON.stringify(r.body)).not.toContain('secret');
      // The same answer as a record read gives them.
      const read = await fetch(`${t.api}/dataset/record/${uuid}`, { headers: { Authorization: `Bearer ${other.token}` } });
      expect(r.status).toBe(read.status);
    }
    // A public record they may read.
    expect((await history(SYNTH.record(10), '', other.token!)).status).toBe(200);
  });

  it('refuses bad input with a 400 naming the problem', async () => {
    const cases: [string, string][] = [
      ['?limit=0', 'limit'],
      ['?limit=501', 'limit'],
      ['?limit=abc', 'limit'],
      ['?before=-1', 'before'],
      ['?field=nope', 'field'],
    ];
    for (const [q, word] of cases) {
      const r = await history(SYNTH.record(10), q);
      expect(r.status, q).toBe(400);
      expect(r.body.error?.message, q).toContain(word);
    }
  });
});
