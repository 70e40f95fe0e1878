import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { USER, startSyntheticService, type TestService } from '../support/service.js';

// Record field edits run on the write worker (domain/writer); these compare it with the same
// edits committed on the main thread (a service started with writeWorker: false).

let w: TestService;
let m: TestService;
beforeAll(async () => {
  [w, m] = await Promise.all([startSyntheticService(20), startSyntheticService(20, { writeWorker: false })]);
}, 60_000);
afterAll(async () => {
  await Promise.all([w?.close(), m?.close()]);
});

const TEXT = SYNTH.field('Medium Text');
const INT = SYNTH.field('Integer');

async function answer(t: TestService, method: string, path: string, body?: unknown, token = t.admin.token) {
  const res = await fetch(`${t.api}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.text() };
}

describe('record field edits on the write worker', () => {
  it('run on the worker, and every acknowledged edit is what the next read answers', async () => {
    const ops = w.service.domain.writes.operations;
    for (let i = 0; i < 10; i++) {
      const uuid = SYNTH.record(i % 3);
      await w.admin.record(uuid); // a cached render to invalidate
      const rec = await w.admin.setValue(uuid, TEXT, `edit ${i}`);
      expect(rec.fields.find((f) => f.field_uuid === TEXT)?.value).toBe(`edit ${i}`);
      const read = await w.admin.record(uuid);
      expect(read.fields.find((f) => f.field_uuid === TEXT)?.value).toBe(`edit ${i}`);
    }
    expect(w.service.domain.writer!.counters.operations).toBeGreaterThanOrEqual(10);
    expect(w.service.domain.writes.operations).toBe(ops);
  });

  it("concurrent edits share the worker's commits and are all read back", async () => {
    const before = { ...w.service.domain.writer!.counters };
    await Promise.all(
      Array.from({ length: 8 }, async (_, c) => {
        for (let k = 0; k < 6; k++) {
          await w.admin.setValue(SYNTH.record(c), TEXT, `client ${c} write ${k}`);
          const read = await w.admin.record(SYNTH.record(c));
          expect(read.fields.find((f) => f.field_uuid === TEXT)?.value).toBe(`client ${c} write ${k}`);
        }
      }),
    );
    const after = w.service.domain.writer!.counters;
    expect(after.operations - before.operations).toBe(48);
    expect(after.batches - before.batches).toBeLessThan(48);
  });

  it('answers every failure with the status and body the main thread gives, changing nothing', async () => {
    const token = async (t: TestService) => (await t.loginAs(USER.email, USER.password)).token;
    const [wUser, mUser] = [await token(w), await token(m)];
    const rec = SYNTH.record(5);
    const option = async (t: TestService) => {
      const f = t.service.domain.schema().fieldsByUuid.get(SYNTH.field('Single Radio'))!;
      return `${f.uuid}/${f.options[0]!.uuid}`;
    };
    const cases: [string, string, unknown?, boolean?][] = [
      ['POST', `/record/${rec}/${INT}/value`, { value: 'not a number' }],
      ['POST', `/record/nope/${TEXT}/value`, { value: 'x' }],
      ['POST', `/record/${rec}/nope/value`, { value: 'x' }],
      ['POST', `/record/${rec}/${SYNTH.field('Single Radio')}/value`, { value: 'x' }],
      ['POST', `/record/${rec}/${TEXT}/value`, { value: 'as a viewer' }, true],
      ['PUT', `/record/${rec}/${await option(w)}/selected`, undefined, true],
      ['PUT', `/record/nope/${await option(w)}/selected`],
      ['PUT', `/record/${rec}/${SYNTH.field('Single Radio')}/nope/selected`],
      ['PUT', `/record/${rec}/${TEXT}/nope/selected`],
    ];
    const before = [w.digest(), m.digest()];
    for (const [method, path, body, asUser] of cases) {
      const a = await answer(w, method, path, body, asUser ? wUser : undefined);
      const b = await answer(m, method, path, body, asUser ? mUser : undefined);
      expect(a.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(a, `${method} ${path}`).toEqual(b);
    }
    expect([w.digest(), m.digest()]).toEqual(before);
  });

  it("option edits give the main thread's answers", async () => {
    const f = w.service.domain.schema().fieldsByUuid.get(SYNTH.field('Single Radio'))!;
    for (const o of [f.options[1]!, f.options[0]!]) {
      const a = await w.admin.setOption(SYNTH.record(7), f.uuid, o.uuid, true);
      const b = await m.admin.setOption(SYNTH.record(7), f.uuid, o.uuid, true);
      const strip = (r: typeof a) => JSON.stringify(r.fields.find((x) => x.field_uuid === f.uuid));
      expect(strip(a)).toEqual(strip(b));
    }
  });

  it("main-thread writes beside the worker's: both commit, none waits long on the other", async () => {
    const slowest = { ms: 0 };
    const stop = { now: false };
    const edits = Promise.all(
      Array.from({ length: 4 }, async (_, c) => {
        for (let k = 0; k < 15; k++) await w.admin.setValue(SYNTH.record(10 + c), TEXT, `beside ${c} ${k}`);
      }),
    ).finally(() => (stop.now = true));
    const created: string[] = [];
    // Record creation commits on the main thread's connection.
    while (!stop.now && created.length < 40) {
      const t0 = performance.now();
      created.push((await w.admin.createRecord(SYNTH.dataset)).record_uuid);
      slowest.ms = Math.max(slowest.ms, performance.now() - t0);
    }
    await edits;
    expect(created.length).toBeGreaterThan(0);
    for (const u of created) expect((await w.admin.record(u)).record_uuid).toBe(u);
    for (let c = 0; c < 4; c++) {
      const read = await w.admin.record(SYNTH.record(10 + c));
      expect(read.fields.find((f) => f.field_uuid === TEXT)?.value).toBe(`beside ${c} 14`);
    }
    // A main-thread write waits at most for one of the worker's batches (busy_timeout is 5 s).
    expect(slowest.ms).toBeLessThan(2000);
  });
});
