import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// A dataset's "last change" (GET /local/datasets: the sidebar and the dataset head) is the latest
// of its records' update dates and of the deletes and restores of its records: deleting the
// newest record used to turn it back to an older time, and a restore did not count.

const TEXT = SYNTH.field('Medium Text');
let now = new Date('2026-05-01T10:00:00Z');
let t: TestService;

const at = (minutes: number) => (now = new Date(Date.parse('2026-05-01T10:00:00Z') + minutes * 60_000));
/** What the service stores for the clock's time (the ODR date form). */
const stamp = () => t.service.domain.now();
const local = (path: string, method = 'GET') =>
  fetch(`${t.host.url}/local${path}`, { method, headers: { Authorization: `Bearer ${t.admin.token}` } });
async function summary(uuid = SYNTH.dataset): Promise<{ records: number; updated: string }> {
  const res = await local('/datasets');
  expect(res.status).toBe(200);
  const { datasets } = (await res.json()) as { datasets: { uuid: string; records: number; updated: string }[] };
  return datasets.find((d) => d.uuid === uuid)!;
}

beforeAll(async () => {
  t = await startSyntheticService(6, { clock: () => now, config: { tokenTtlSeconds: 10 * 365 * 86400 } });
});
afterAll(() => t.close());

describe("a dataset's last change", () => {
  it('moves forward with a delete of its newest record, and with a restore', async () => {
    at(1);
    await t.admin.setValue(SYNTH.record(2), TEXT, 'the newest edit');
    const edited = stamp();
    expect(await summary()).toMatchObject({ records: 6, updated: edited });

    at(2);
    await t.admin.deleteRecords([SYNTH.record(2)]);
    const deleted = stamp();
    expect(deleted > edited).toBe(true);
    // Before: the newest date among the records left, older than the edit.
    expect(await summary()).toMatchObject({ records: 5, updated: deleted });

    at(3);
    expect((await local(`/records/${SYNTH.record(2)}/restore`, 'POST')).status).toBe(200);
    expect(await summary()).toMatchObject({ records: 6, updated: stamp() });
  });

  it('a child record deleted changes its top record, so its dataset', async () => {
    at(4);
    // Synthetic record 0 has child records (one in ten has).
    const parent = (await t.admin.record(SYNTH.record(0))) as { records: { record_uuid: string }[] };
    const child = parent.records[0]!.record_uuid;
    await t.admin.deleteRecords([child]);
    expect(await summary()).toMatchObject({ records: 6, updated: stamp() });
  });

  it('never moves back: a change stamped earlier than one shown keeps the later', async () => {
    at(10);
    await t.admin.setValue(SYNTH.record(4), TEXT, 'at ten');
    const ten = stamp();
    // A clock that went back (another machine's, a pull of an older delete) does not undo it.
    at(5);
    await t.admin.deleteRecords([SYNTH.record(5)]);
    expect(await summary()).toMatchObject({ records: 5, updated: ten });
  });

  it('is the last delete when every record is gone, and the restore of a deleted dataset', async () => {
    at(20);
    const left = [0, 1, 2, 3, 4].map((i) => SYNTH.record(i));
    await t.admin.deleteRecords(left);
    expect(await summary()).toMatchObject({ records: 0, updated: stamp() });

    at(21);
    expect((await t.admin.send('DELETE', `/dataset/${SYNTH.dataset}`)).status).toBe(200);
    const trash = (await (await local('/trash')).json()) as { datasets: { id: string; dataset_uuid: string }[] };
    const entry = trash.datasets.find((x) => x.dataset_uuid === SYNTH.dataset)!;
    at(22);
    expect((await local(`/trash/${entry.id}/restore`, 'POST')).status).toBe(200);
    expect((await summary()).updated).toBe(stamp());
  });
});
