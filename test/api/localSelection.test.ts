import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { startSyntheticService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startSyntheticService(30);
});
afterAll(() => t.close());

async function get(path: string, token: string | null = t.admin.token ?? null) {
  const res = await fetch(`${t.host.url}/local/datasets/${path}`, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { error?: { code: number; message: string } } };
}

describe('GET /local/datasets/{uuid}/record-uuids (ranges and select-all)', () => {
  it('answers every uuid of the view in its order, or a stretch of it', async () => {
    const all = await get(`${SYNTH.dataset}/record-uuids`);
    expect(all.body).toMatchObject({ total: 30, offset: 0 });
    expect(all.body.uuids).toEqual(Array.from({ length: 30 }, (_, i) => SYNTH.record(i)));
    const part = await get(`${SYNTH.dataset}/record-uuids?offset=5&limit=3`);
    expect(part.body.uuids).toEqual([SYNTH.record(5), SYNTH.record(6), SYNTH.record(7)]);
    const desc = await get(`${SYNTH.dataset}/record-uuids?sort=_id&dir=desc&limit=2`);
    expect(desc.body.uuids).toEqual([SYNTH.record(29), SYNTH.record(28)]);
    const found = await get(`${SYNTH.dataset}/record-uuids?q=S-000012`);
    expect(found.body.uuids).toEqual([SYNTH.record(12)]);
  });

  it('refuses bad input with a clear error and unknown datasets with 404', async () => {
    for (const [q, word] of [
      ['offset=-1', 'offset'],
      ['limit=abc', 'limit'],
      ['dir=up', 'dir'],
      ['sort=nope', 'sort'],
    ] as const) {
      const r = await get(`${SYNTH.dataset}/record-uuids?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error?.message, q).toContain(word);
    }
    expect((await get('ffffffffffffffffffffffffffff/record-uuids')).status).toBe(404);
    expect((await get(`${SYNTH.dataset}/record-uuids`, null)).status).toBe(401);
  });
});

describe('GET /local/datasets/{uuid}/position/{record}', () => {
  it('says where a record sits in the view, -1 when it is not in it', async () => {
    expect((await get(`${SYNTH.dataset}/position/${SYNTH.record(9)}`)).body.index).toBe(9);
    expect((await get(`${SYNTH.dataset}/position/${SYNTH.record(9)}?sort=_id&dir=desc`)).body.index).toBe(20);
    expect((await get(`${SYNTH.dataset}/position/${SYNTH.record(9)}?q=S-000012`)).body.index).toBe(-1);
  });
});
