import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OdrApiError } from '../../shared/client/odrClient.js';
import { SYNTH } from '../../bench/synthetic.js';
import { startSyntheticService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startSyntheticService(40);
});
afterAll(() => t.close());

describe('group commit of concurrent mutations', () => {
  it('shares commits between concurrent writes, rejecting only the one that fails', async () => {
    const before = { batches: t.service.domain.writes.batches, ops: t.service.domain.writes.operations };
    const text = SYNTH.field('Medium Text');
    const int = SYNTH.field('Integer');
    const writes = Array.from({ length: 40 }, (_, i) =>
      i === 17 ? t.admin.setValue(SYNTH.record(i), int, 'not a number') : t.admin.setValue(SYNTH.record(i), text, `concurrent ${i}`),
    );
    const settled = await Promise.allSettled(writes);
    const failed = settled.flatMap((s, i) => (s.status === 'rejected' ? [i] : []));
    expect(failed).toEqual([17]);
    const err = (settled[17] as PromiseRejectedResult).reason;
    expect(err).toBeInstanceOf(OdrApiError);
    expect((err as OdrApiError).status).toBe(400);

    const ops = t.service.domain.writes.operations - before.ops;
    const batches = t.service.domain.writes.batches - before.batches;
    expect(ops).toBe(40);
    expect(batches).toBeLessThan(40);

    for (const i of [0, 16, 18, 39]) {
      const rec = await t.admin.record(SYNTH.record(i));
      expect(rec.fields.find((f) => f.field_uuid === text)?.value).toBe(`concurrent ${i}`);
    }
    const rec17 = await t.admin.record(SYNTH.record(17));
    expect(rec17.fields.find((f) => f.field_uuid === int)?.value).not.toBe('not a number');
  });

  it('lets writers that each wait for their acknowledgement share batches', async () => {
    const text = SYNTH.field('Long Text');
    const before = { batches: t.service.domain.writes.batches, ops: t.service.domain.writes.operations };
    // 8 clients, each writing as soon as its previous write is acknowledged (like the bench).
    await Promise.all(
      Array.from({ length: 8 }, async (_, c) => {
        for (let k = 0; k < 12; k++) await t.admin.setValue(SYNTH.record(c), text, `client ${c} write ${k}`);
      }),
    );
    const ops = t.service.domain.writes.operations - before.ops;
    const batches = t.service.domain.writes.batches - before.batches;
    expect(ops).toBe(96);
    expect(ops / batches).toBeGreaterThanOrEqual(4);
  });
});
