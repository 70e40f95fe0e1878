import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { TestService } from '../support/service.js';
import { attachedPair, parkedOf, refusedRun, setPublicDate, storeFile, syncRun, type gateProxy, type RemoteProc } from './support.js';

// Operations the server refused were listed under "needs attention" and the user could only
// look: now each one can be retried (queued again) or discarded (dropped, and what it changed
// here set back to the server's copy), through POST /local/sync/attention/{id}.

const TEXT = SYNTH.field('Medium Text');
const INT = SYNTH.field('Integer');
const MS = SYNTH.field('Multiple Select');
const FILE = SYNTH.field('File');
let remote: RemoteProc;
let local: TestService;
let gate: Awaited<ReturnType<typeof gateProxy>>;
let remoteId: number;

attachedPair(
  8,
  (p) => {
    ({ remote, local, remoteId } = p);
    gate = p.gate!;
  },
  { gated: true },
);

const run = () => syncRun(local, remoteId);
const value = (r: OdrRecord, f: string) => r.fields.find((x) => x.field_uuid === f)?.value;
const listed = (rec: string) => parkedOf(local, rec);
const ids = async (c: TestService['admin']) => (await c.recordIds(SYNTH.dataset)).records.map((r) => r.unique_id);

const refused = (match: (method: string, path: string) => boolean) => refusedRun({ local, remoteId, gate }, match);

/** POST /local/sync/attention/{id} as the local super-user. */
async function attend(id: number | string, body: unknown) {
  const res = await fetch(local.api.replace(/\/api\/v4$/, `/local/sync/attention/${id}`), {
    method: 'POST',
    headers: { Authorization: `Bearer ${local.admin.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { error?: { code: unknown; message: string } } };
}

describe('needs attention: retry and discard', () => {
  it('retry: a refused value is sent again by the next sync, and no longer listed', async () => {
    const rec = SYNTH.record(1);
    await local.admin.setValue(rec, TEXT, 'refused, then retried');
    await refused((method, path) => method === 'POST' && path.endsWith(`/${TEXT}/value`));
    const [parked] = listed(rec);
    expect(parked).toMatchObject({ op: 'value' });
    expect(await attend(parked!.id, { action: 'retry' })).toEqual({
      status: 200,
      body: { id: parked!.id, action: 'retry', state: 'queued' },
    });
    expect(listed(rec)).toEqual([]);
    await run();
    expect(value(await remote.client.record(rec), TEXT)).toBe('refused, then retried');
    expect(listed(rec)).toEqual([]);
  });

  it("discard: a refused value goes back to the server's here, nothing is sent, and a later server change arrives", async () => {
    const rec = SYNTH.record(2);
    const theirs = value(await remote.client.record(rec), TEXT);
    await local.admin.setValue(rec, TEXT, 'refused, then discarded');
    await refused((method, path) => method === 'POST' && path.endsWith(`/${TEXT}/value`));
    expect(value(await local.admin.record(rec), TEXT)).toBe('refused, then discarded');
    const [parked] = listed(rec);
    expect((await attend(parked!.id, { action: 'discard' })).body).toMatchObject({ state: 'discarded' });
    expect(value(await local.admin.record(rec), TEXT)).toBe(theirs);
    expect(listed(rec)).toEqual([]);
    expect((await run()).pushed).toBe(0);
    await remote.client.setValue(rec, TEXT, 'changed on the server after');
    await run();
    expect(value(await local.admin.record(rec), TEXT)).toBe('changed on the server after');
    expect(local.service.sync.conflicts()).toEqual([]);
  });

  it('retry of a refused delete deletes the record again, here and then there', async () => {
    const rec = SYNTH.record(3);
    await local.admin.deleteRecords([rec]);
    await refused((method, path) => method === 'DELETE' && path.endsWith('/record'));
    expect(await ids(local.admin)).toContain(rec);
    const [parked] = listed(rec);
    expect(parked).toMatchObject({ op: 'delete' });
    expect((await attend(parked!.id, { action: 'retry' })).status).toBe(200);
    expect(await ids(local.admin)).not.toContain(rec);
    await run();
    expect(await ids(remote.client)).not.toContain(rec);
    expect(listed(rec)).toEqual([]);
  });

  it('discard of a refused create: the record leaves here (to the trash), the server never gets it', async () => {
    const count = (await ids(remote.client)).length;
    const made = await local.admin.createRecord(SYNTH.dataset);
    await local.admin.setValue(made.record_uuid, INT, 6006);
    await refused((method, path) => method === 'POST' && path.endsWith(`/dataset/${SYNTH.dataset}/record`));
    const [parked] = listed(made.record_uuid);
    expect(parked).toMatchObject({ op: 'create' });
    expect((await attend(parked!.id, { action: 'discard' })).body).toMatchObject({ state: 'discarded' });
    expect(await ids(local.admin)).not.toContain(made.record_uuid);
    await run();
    expect(await ids(remote.client)).toHaveLength(count);
    expect(local.service.sync.status().needsAttention).toEqual([]);
    // Its value edit went with it: nothing of the discarded record waits to be sent.
    expect(local.service.sync.status().pending).toBe(0);
  });

  it('discard after a newer edit of the same field: 409, the newer edit stays here and is sent', async () => {
    const rec = SYNTH.record(6);
    await local.admin.setValue(rec, TEXT, 'refused first');
    await refused((method, path) => method === 'POST' && path.endsWith(`/${TEXT}/value`));
    const [parked] = listed(rec);
    await local.admin.setValue(rec, TEXT, 'newer edit, made after the refusal');
    const r = await attend(parked!.id, { action: 'discard' });
    expect(r.status).toBe(409);
    expect(r.body.error?.message).toMatch(/replaced by a newer edit/);
    expect(value(await local.admin.record(rec), TEXT)).toBe('newer edit, made after the refusal');
    expect(listed(rec)).toEqual([]);
    await run();
    expect(value(await remote.client.record(rec), TEXT)).toBe('newer edit, made after the refusal');
  });

  it("retry of a refused file's metadata after a newer metadata edit: 409 naming it, the newer one sent", async () => {
    const rec = SYNTH.record(7);
    await storeFile(local.admin, rec, 'quality.txt', 'a file whose quality is refused');
    await run();
    const fileOf = (r: OdrRecord) => r.fields.find((x) => x.field_uuid === FILE)!.files!.find((f) => f.original_name === 'quality.txt')!;
    const mine = fileOf(await local.admin.record(rec)).file_uuid;
    const quality = (q: number) =>
      local.admin.save({ record_uuid: rec, fields: [{ field_uuid: FILE, files: [{ file_uuid: mine, quality: q }] }] });
    await quality(3);
    await refused((method, path) => method === 'POST' && path.endsWith('/dataset/record'));
    const [parked] = listed(rec);
    expect(parked).toMatchObject({ op: 'file_meta', file_name: 'quality.txt' });
    await quality(4);
    // Collected first (a sync's push would too), so a pending file_meta of the same key waits.
    const r = await attend(parked!.id, { action: 'retry' });
    expect(r.status).toBe(409);
    expect(r.body.error?.message).toMatch(/replaced by a newer edit/);
    expect(listed(rec)).toEqual([]);
    await run();
    expect(fileOf(await remote.client.record(rec))._file_metadata?._quality).toBe('4');
    expect(local.service.sync.status().pending).toBe(0);
  });

  it("discard of a refused option and of a refused public date: each back to the server's here", async () => {
    const rec = SYNTH.record(5);
    const sel = (r: OdrRecord) => (r.fields.find((x) => x.field_uuid === MS)?.values ?? []).map((v) => v.template_radio_option_uuid);
    const start = sel(await local.admin.record(rec));
    const x = [1, 2, 3, 4, 5].map((k) => SYNTH.option('Multiple Select', k)).find((o) => !start.includes(o))!;
    await local.admin.setOption(rec, MS, x, true);
    await refused((method, path) => method === 'PUT' && path.includes(`/${MS}/${x}/`));
    const pub = (r: OdrRecord) => r._record_metadata._public_date;
    const theirDate = pub(await remote.client.record(rec));
    await setPublicDate(local.admin, rec, '2036-01-01 00:00:00');
    await refused((method, path) => method === 'POST' && path.endsWith('/dataset/record/public'));
    expect(
      listed(rec)
        .map((o) => o.op)
        .sort(),
    ).toEqual(['option', 'public']);
    for (const o of listed(rec)) expect((await attend(o.id, { action: 'discard' })).body).toMatchObject({ state: 'discarded' });
    const here = await local.admin.record(rec);
    expect(sel(here)).not.toContain(x);
    expect(pub(here)).toBe(theirDate);
    expect(listed(rec)).toEqual([]);
    expect((await run()).pushed).toBe(0);
    expect(sel(await remote.client.record(rec))).not.toContain(x);
    expect(pub(await remote.client.record(rec))).toBe(theirDate);
  });

  it('refuses bad input with a status and a JSON error, changing nothing', async () => {
    const rec = SYNTH.record(4);
    await local.admin.setValue(rec, TEXT, 'refused, left as it is');
    await refused((method, path) => method === 'POST' && path.endsWith(`/${TEXT}/value`));
    const [parked] = listed(rec);
    const digest = local.digest();
    const bad = [
      [parked!.id, { action: 'again' }, 400, /action must be "retry" or "discard"/],
      [parked!.id, {}, 400, /action/],
      [999999, { action: 'retry' }, 404, /operation needing attention \(999999\)/],
      ['abc', { action: 'retry' }, 400, /id/],
    ] as const;
    for (const [id, body, status, message] of bad) {
      const r = await attend(id, body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.error?.message).toMatch(message);
    }
    expect(local.digest()).toBe(digest);
    expect(listed(rec)).toHaveLength(1);
    // Done once: the same id is no longer an operation needing attention.
    expect((await attend(parked!.id, { action: 'discard' })).status).toBe(200);
    expect((await attend(parked!.id, { action: 'retry' })).status).toBe(404);
  });
});
