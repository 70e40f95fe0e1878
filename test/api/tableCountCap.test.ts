import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TablePage } from '../../shared/schemas/local.js';
import { SYNTH } from '../../bench/synthetic.js';
import { USER, startSyntheticService, type TestService } from '../support/service.js';

// The record table counts a search's matches only up to a cap (10,000; the service config's
// countCap lowers it here to 7 on 40 records) and flags the total as a lower bound; `count=exact` gives the figure.
// A result below the cap, a page that reaches the end and an admin's table without search or filter
// are exact and not flagged; a non-admin's table counts their visible rows and is capped.

const CAP = 7;
let t: TestService;
let userToken: string;

beforeAll(async () => {
  t = await startSyntheticService(40, { config: { countCap: CAP } });
  // Some records of the user's own, so a non-admin's visible rows differ from the admin's.
  const mine = await t.loginAs(USER.email, USER.password);
  for (let i = 0; i < 3; i++) await mine.createRecord(SYNTH.dataset);
  userToken = mine.token!;
}, 60_000);
afterAll(() => t.close());

async function call(path: string, token = t.admin.token) {
  const res = await fetch(`${t.host.url}/local/datasets/${SYNTH.dataset}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as unknown };
}
async function page(query: string, token?: string) {
  const { status, body } = await call(`/records?${query}`, token);
  expect(status, query).toBe(200);
  return TablePage.strict().parse(body);
}
/** The exact count through the route that select-all uses (never capped). */
async function uuidsTotal(query: string, token?: string) {
  return ((await call(`/record-uuids?${query}&limit=1`, token)).body as { total: number }).total;
}
/** A word of the synthetic data matching more than CAP records (and fewer than all). */
const MANY = 'basalt';
const FILTER = `filters=${encodeURIComponent(JSON.stringify([{ kind: 'range', field: SYNTH.field('Integer'), min: '-1000000000' }]))}`;

describe('GET /local/datasets/{uuid}/records: the capped total', () => {
  it('a search matching more than the cap answers the cap, flagged; count=exact answers the figure', async () => {
    // Capped first: an exact count, once made, is kept for the query and answered instead.
    const capped = await page(`q=${MANY}&limit=3`);
    expect(capped).toMatchObject({ total: CAP, total_capped: true, offset: 0 });
    expect(capped.records).toHaveLength(3);
    const full = await page(`q=${MANY}&limit=3&count=exact`);
    const exact = await uuidsTotal(`q=${MANY}`);
    expect(exact).toBeGreaterThan(CAP);
    expect(full).toMatchObject({ total: exact, total_capped: false });
    expect(full.records.map((r) => r.record_uuid)).toEqual(capped.records.map((r) => r.record_uuid));
    // Once counted exactly, the capped request reuses the kept figure.
    expect(await page(`q=${MANY}&limit=3`)).toMatchObject({ total: exact, total_capped: false });
    // limit=0: the count alone.
    expect(await page(`q=${MANY} x&limit=0&count=exact`)).toMatchObject({ total_capped: false, records: [] });
  });

  it('a search below the cap is exact and not flagged', async () => {
    const word = 'zzznomatch';
    expect(await page(`q=${word}&limit=3`)).toMatchObject({ total: 0, total_capped: false, records: [] });
    const one = (await page(`limit=1`)).records[0]!.record_uuid;
    const few = await page(`q=${one}&limit=3`);
    expect(few.total_capped).toBe(false);
    expect(few.total).toBe(await uuidsTotal(`q=${one}`));
    expect(few.total).toBeLessThanOrEqual(CAP);
  });

  it('a page that reaches the last match has seen every match: exact, not flagged', async () => {
    // A query nothing counted before (a word and a filter together), paged first: the capped count
    // stops at the cap, and the walk that ends short of the page gives the figure.
    const q = `q=${MANY}&${FILTER}&sort=_updated&dir=desc`;
    const all = await page(`${q}&limit=500`);
    const exact = await uuidsTotal(q);
    expect(exact).toBeGreaterThan(CAP);
    expect(all).toMatchObject({ total: exact, total_capped: false });
    expect(all.records).toHaveLength(exact);
  });

  it('filters alone are capped too; the unfiltered table is the kept count, exact', async () => {
    expect(await page(`${FILTER}&limit=2`)).toMatchObject({ total: CAP, total_capped: true });
    const full = await page(`${FILTER}&limit=2&count=exact`);
    const exact = await uuidsTotal(FILTER);
    expect(exact).toBeGreaterThan(CAP);
    expect(full).toMatchObject({ total: exact, total_capped: false });
    expect(await page('limit=2')).toMatchObject({ total: 43, total_capped: false });
  });

  it('a non-admin viewer gets the cap over the rows they may read, and their exact count', async () => {
    const q = `sort=_updated`;
    expect(await page(`${q}&limit=2`, userToken)).toMatchObject({ total: CAP, total_capped: true });
    const full = await page(`${q}&limit=2&count=exact`, userToken);
    const exact = await uuidsTotal(q, userToken);
    expect(exact).toBeGreaterThan(CAP);
    expect(exact).toBeLessThan(await uuidsTotal(q));
    expect(full).toMatchObject({ total: exact, total_capped: false });
  });

  it('a bad count is refused with a clear error', async () => {
    const { status, body } = await call(`/records?q=${MANY}&count=some`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { message: expect.stringContaining('count must be "capped" or "exact"') } });
  });
});
