import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OdrClient } from '../../shared/client/odrClient.js';
import { RecordTrashList } from '../../shared/schemas/local.js';
import { SYNTH } from '../../bench/synthetic.js';
import { ADMIN, USER, startSyntheticService, type TestService } from '../support/service.js';

// GET /local/records/trash: what the Trash panel lists after a reload (the undo history is gone
// then), exactly the entries POST /local/records/{uuid}/restore would accept from the caller.

const DAY = 86_400_000;
const TEXT = SYNTH.field('Medium Text');
let now = new Date('2026-04-01T10:00:00Z');
let t: TestService;
let user: OdrClient;

const local = (path: string, client: OdrClient, method = 'GET') =>
  fetch(t.api.replace(/\/api\/v4$/, `/local${path}`), { method, headers: { Authorization: `Bearer ${client.token}` } });
const list = async (client: OdrClient, query = '') => {
  const res = await local(`/records/trash${query}`, client);
  expect(res.status).toBe(200);
  return RecordTrashList.parse(await res.json());
};
const tick = () => (now = new Date(now.getTime() + 1000));

beforeAll(async () => {
  t = await startSyntheticService(12, { clock: () => now, config: { tokenTtlSeconds: 10 * 365 * 86400 } });
  user = await t.loginAs(USER.email, USER.password);
});
afterAll(() => t.close());

describe('GET /local/records/trash', () => {
  it("lists the caller's restorable deletes newest first, with dataset, name and who deleted it; others' stay hidden", async () => {
    await t.admin.deleteRecords([SYNTH.record(3)]);
    tick();
    await t.admin.deleteRecords([SYNTH.record(4)]);
    tick();
    const made = await user.createRecord(SYNTH.dataset);
    await user.setValue(made.record_uuid, TEXT, 'mine');
    await user.deleteRecords([made.record_uuid]);

    const admin = await list(t.admin);
    expect(admin.records.map((r) => r.record_uuid)).toEqual([made.record_uuid, SYNTH.record(4), SYNTH.record(3)]);
    expect(admin.total).toBe(3);
    const four = admin.records[1]!;
    expect(four.dataset_uuid).toBe(SYNTH.dataset);
    expect(four.dataset_name).toBe(t.service.domain.schema().datatypesByUuid.get(SYNTH.dataset)!.name);
    expect(four.deleted_by).toBe(ADMIN.email);
    expect(four.name).toMatch(/\S/);
    expect(Date.parse(four.expires_at) - Date.parse(four.deleted_at)).toBe(30 * DAY);

    // The non-editor sees only the record they created, never the admin's deletes.
    const mine = await list(user);
    expect(mine.records.map((r) => r.record_uuid)).toEqual([made.record_uuid]);
    expect(mine.records[0]!.deleted_by).toBe(USER.email);
    // … and the list agrees with the restore route.
    expect((await local(`/records/${SYNTH.record(4)}/restore`, user, 'POST')).status).toBe(404);

    // Paging.
    const page = await list(t.admin, '?limit=1&offset=1');
    expect(page.records.map((r) => r.record_uuid)).toEqual([SYNTH.record(4)]);
    expect(page.total).toBe(3);
  });

  it('restoring from the list takes the entry off it and brings the record back', async () => {
    const entry = (await list(t.admin)).records.find((r) => r.record_uuid === SYNTH.record(4))!;
    const res = await local(`/records/${entry.record_uuid}/restore`, t.admin, 'POST');
    expect(res.status).toBe(200);
    expect((await t.admin.record(SYNTH.record(4))).record_uuid).toBe(SYNTH.record(4));
    expect((await list(t.admin)).records.map((r) => r.record_uuid)).not.toContain(SYNTH.record(4));
  });

  it('leaves out entries older than 30 days', async () => {
    expect((await list(t.admin)).records.map((r) => r.record_uuid)).toContain(SYNTH.record(3));
    now = new Date(now.getTime() + 31 * DAY);
    const after = await list(t.admin);
    expect(after.records).toEqual([]);
    expect(after.total).toBe(0);
  });

  it('answers 400 JSON naming the problem for a bad limit or offset, and changes nothing', async () => {
    const before = t.digest();
    for (const q of ['?limit=0', '?limit=501', '?limit=ten', '?offset=-1', '?limit=1.5']) {
      const res = await local(`/records/trash${q}`, t.admin);
      expect(res.status, q).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.message, q).toMatch(/limit|offset/);
    }
    expect(t.digest()).toBe(before);
  });
});
