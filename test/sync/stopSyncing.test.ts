import { beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { StopSyncingAnswer, StopSyncingPreview } from '../../shared/schemas/sync.js';
import { USER, type TestService } from '../support/service.js';
import { attachedPair, type RemoteProc } from './support.js';

// "Stop syncing" a dataset (DELETE /local/sync/datasets/{uuid}): its sync state (id map, server
// copies, outbox, conflicts, bin, file map) goes in one step, its local data stays, and the
// dataset, refused deletion while synced, can then be deleted. The remote is a second service
// process.

const DS = SYNTH.dataset;
const TEXT = SYNTH.field('Medium Text');
const FILE = SYNTH.field('File');
const SYNC_TABLES = ['sync_datasets', 'sync_id_map', 'sync_base', 'sync_outbox', 'sync_conflicts', 'sync_removed', 'sync_file_map'];
let remote: RemoteProc;
let local: TestService;
let remoteId: number;

const su = () => local.service.domain.users.firstSuperUser()!;
const run = async () => {
  const s = await local.service.sync.run(remoteId, su(), [DS]);
  expect(s.error).toBeUndefined();
  return s;
};
const rows = (table: string) => local.service.ctx.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
/** The `meta` keys naming the dataset. */
const metaKeys = () => local.service.ctx.db.prepare('SELECT key FROM meta WHERE instr(key, ?) > 0 ORDER BY key').pluck().all(DS);
const value = (r: OdrRecord, f: string) => r.fields.find((x) => x.field_uuid === f)?.value;

async function localCall(method: string, path: string, token = local.admin.token!) {
  const res = await fetch(`${local.host.url}${path}`, { method, headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json().catch(() => null)) as unknown };
}
const stop = (uuid: string, token?: string) => localCall('DELETE', `/local/sync/datasets/${uuid}`, token);

attachedPair(6, (p) => ({ remote, local, remoteId } = p), {
  // A file only the server holds: pulled as metadata, its bytes fetched on first use.
  beforeGate: async (r) => {
    await r.client.uploadFile(
      { dataset_uuid: DS, record_uuid: SYNTH.record(3), field_uuid: FILE, template_field_uuid: '' },
      { blob: new Blob(['only on the server']), name: 'remote-only.txt' },
    );
  },
});
beforeAll(async () => {
  await local.service.domain.users.create({ email: USER.email, password: USER.password });
});

describe('stop syncing a dataset', () => {
  it('drops every row of its sync state in one step, keeps its data here, and then the dataset can be deleted', async () => {
    // State of every kind: a pushed upload (file map), a conflict, a local edit waiting.
    await local.admin.uploadFile(
      { dataset_uuid: DS, record_uuid: SYNTH.record(1), field_uuid: FILE, template_field_uuid: '' },
      { blob: new Blob(['kept here']), name: 'kept.txt' },
    );
    await local.admin.setValue(SYNTH.record(2), TEXT, 'mine 2');
    await remote.client.setValue(SYNTH.record(2), TEXT, 'theirs 2');
    await run();
    expect(local.service.sync.conflicts().length).toBe(1);
    // A file sweep under way (docs/sync.md §4): its progress, like the template last applied, is
    // kept in `meta` per remote and dataset.
    const env = {
      ODR_SYNC_SWEEP_SECONDS: process.env.ODR_SYNC_SWEEP_SECONDS,
      ODR_SYNC_SWEEP_PER_PULL: process.env.ODR_SYNC_SWEEP_PER_PULL,
    };
    Object.assign(process.env, { ODR_SYNC_SWEEP_SECONDS: '0', ODR_SYNC_SWEEP_PER_PULL: '2' });
    try {
      await run();
    } finally {
      for (const [k, v] of Object.entries(env))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
    expect(metaKeys()).toEqual([`sync_sweep:${remoteId}:${DS}`, `sync_sweep:${remoteId}:${DS}:next`, `sync_template:${remoteId}:${DS}`]);
    const otherMetaRows = local.service.ctx.db.prepare('SELECT key, value FROM meta WHERE instr(key, ?) = 0 ORDER BY key');
    // The search indexer keeps its cursor and skip list in `meta` too, and moves them in the
    // background whenever it catches up: brought up to date first, as digest() does, so a
    // difference is the stop's.
    const otherMeta = () => {
      local.service.domain.search.catchUp();
      local.service.domain.search.settleSkips();
      return otherMetaRows.all(DS);
    };
    await local.admin.setValue(SYNTH.record(4), TEXT, 'waiting 4');
    const status = local.service.sync.status();
    expect(status.pending).toBeGreaterThan(0);
    for (const t of ['sync_datasets', 'sync_base', 'sync_outbox', 'sync_conflicts', 'sync_file_map']) expect(rows(t), t).toBeGreaterThan(0);

    // Synced: deleting it here is refused.
    expect((await local.admin.send('DELETE', `/dataset/${DS}`)).status).toBe(409);

    // Refused, changing nothing: not a super-user, unknown dataset, a child dataset, a sync running.
    const userToken = (await local.loginAs(USER.email, USER.password)).token!;
    const counts = () => SYNC_TABLES.map(rows).join(',');
    const before = counts();
    expect((await stop(DS, userToken)).status).toBe(403);
    expect((await stop('0000000000000000000000000000')).status).toBe(404);
    const child = await stop(SYNTH.child);
    expect(child.status).toBe(400);
    expect(JSON.stringify(child.body)).toContain(DS);
    let release!: () => void;
    const held = local.service.sync.exclusive(remoteId, () => new Promise<void>((r) => (release = r)));
    const busy = await stop(DS);
    release();
    await held;
    expect(busy.status).toBe(409);
    expect((busy.body as { error: { message: string } }).error.message).toMatch(/sync with remote \d+ is running/);
    expect(counts()).toBe(before);

    // Files never downloaded would be cut off for good: counted before confirming, and the stop
    // is refused, changing nothing, unless forced.
    const preview = await localCall('GET', `/local/sync/datasets/${DS}`);
    expect(preview.status).toBe(200);
    const notLocal = StopSyncingPreview.parse(preview.body).files_not_local;
    expect(notLocal).toBeGreaterThanOrEqual(1);
    const refused = await stop(DS);
    expect(refused.status).toBe(409);
    expect((refused.body as { error: { message: string } }).error.message).toMatch(
      new RegExp(`^${notLocal} files of .* are not on this computer.*force=true`),
    );
    expect(counts()).toBe(before);
    expect((await localCall('GET', `/local/sync/datasets/${DS}`, userToken)).status).toBe(403);

    const records = (await local.admin.request<{ records: OdrRecord[] }>('GET', `/dataset/${DS}/1000/0`)).records;
    const metaBefore = otherMeta();
    const res = await localCall('DELETE', `/local/sync/datasets/${DS}?force=true`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const answer = StopSyncingAnswer.parse(res.body);
    expect(answer.files_unavailable).toBe(notLocal);
    expect(answer.remotes).toBe(1);
    expect(answer.conflicts).toBe(1);
    expect(answer.outbox).toBeGreaterThan(0);
    expect(answer.bases).toBeGreaterThanOrEqual(6);
    expect(answer.file_map).toBe(1);
    // Nothing of it is left in any sync table (it was the only synced dataset).
    for (const t of SYNC_TABLES) expect(rows(t), t).toBe(0);
    // Its `meta` keys too, and no other one.
    expect(metaKeys()).toEqual([]);
    expect(otherMeta()).toEqual(metaBefore);
    expect(rows('sync_remotes')).toBe(1);
    const after = local.service.sync.status();
    expect([after.datasets, after.pending, after.conflicts]).toEqual([[], 0, []]);
    // The local data stays as it was, the waiting edit included; the remote is untouched.
    expect((await local.admin.request<{ records: OdrRecord[] }>('GET', `/dataset/${DS}/1000/0`)).records).toEqual(records);
    expect(value(await local.admin.record(SYNTH.record(4)), TEXT)).toBe('waiting 4');
    expect(value(await remote.client.record(SYNTH.record(4)), TEXT)).not.toBe('waiting 4');
    // Later edits queue nothing, and a second stop says it is not synced.
    await local.admin.setValue(SYNTH.record(5), TEXT, 'after the stop');
    expect(local.service.sync.status().pending).toBe(0);
    expect((await stop(DS)).status).toBe(409);

    // Now the dataset can be deleted here.
    const deleted = await local.admin.send('DELETE', `/dataset/${DS}`);
    expect(deleted.status, await deleted.text()).toBeLessThan(400);
    expect((await remote.client.request<{ records: OdrRecord[] }>('GET', `/dataset/${DS}/1000/0`)).records.length).toBe(6);
  });
});
