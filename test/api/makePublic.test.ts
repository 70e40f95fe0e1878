import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTimestamp, PRIVATE_DATE } from '../../shared/dates.js';
import { SYNTH } from '../../bench/synthetic.js';
import { ADMIN, startSyntheticService, type TestService } from '../support/service.js';

// "Make public now" on a record that is already public keeps the date it became public; on a
// private or scheduled record it publishes now. Every way a client can say "now" is covered.

let t: TestService;
beforeAll(async () => {
  t = await startSyntheticService(2);
});
afterAll(() => t.close());

const SINCE = '2021-06-01 10:00:00';

async function newRecord(publicDate: string): Promise<string> {
  const body = new URLSearchParams({ public_date: publicDate });
  const r = await fetch(`${t.api}/dataset/${SYNTH.dataset}/record`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.admin.token}` },
    body,
  });
  return ((await r.json()) as { record_uuid: string }).record_uuid;
}

const publicDateOf = async (uuid: string) => (await t.admin.record(uuid))._record_metadata._public_date;

async function publish(uuid: string, date?: string) {
  const form = new URLSearchParams({
    user_email: ADMIN.email,
    dataset_uuid: SYNTH.dataset,
    record_uuid: uuid,
    ...(date === undefined ? {} : { public_date: date }),
  });
  const r = await fetch(`${t.api}/dataset/record/public`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.admin.token}` },
    body: form,
  });
  expect(r.status).toBe(200);
}

async function save(uuid: string, date: string) {
  const r = await fetch(`${t.api}/dataset/record`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.admin.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ record_uuid: uuid, public_date: date }),
  });
  expect(r.status).toBe(200);
}

describe('make public now', () => {
  const ways: [string, (u: string) => Promise<void>][] = [
    ['POST /dataset/record/public without a date', (u) => publish(u)],
    ['POST /dataset/record/public with ""', (u) => publish(u, '')],
    ['POST /dataset/record/public with "now"', (u) => publish(u, 'now')],
    ['POST /dataset/record with public_date "now"', (u) => save(u, 'now')],
  ];
  for (const [name, act] of ways) {
    it(`${name} keeps an already-public record's original date`, async () => {
      const uuid = await newRecord(SINCE);
      await act(uuid);
      expect(await publicDateOf(uuid)).toBe(SINCE);
    });
    it(`${name} publishes a private or scheduled record now`, async () => {
      for (const start of [PRIVATE_DATE, formatTimestamp(new Date(Date.now() + 86_400_000))]) {
        const uuid = await newRecord(start);
        const before = formatTimestamp(new Date(Date.now() - 1000));
        await act(uuid);
        const after = await publicDateOf(uuid);
        expect(after >= before && after <= formatTimestamp(new Date(Date.now() + 1000))).toBe(true);
      }
    });
  }
  it('an explicit date still moves the public date', async () => {
    const uuid = await newRecord(SINCE);
    await publish(uuid, '2022-02-02 02:02:02');
    expect(await publicDateOf(uuid)).toBe('2022-02-02 02:02:02');
  });
});
