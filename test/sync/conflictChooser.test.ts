import { beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { User } from '../../electron/service/domain/users.js';
import { RecordHistory } from '../../shared/schemas/history.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { PUBLIC_DATE_FIELD, RECORD_DELETED_FIELD } from '../../shared/schemas/sync.js';
import type { TestService } from '../support/service.js';
import { attachedPair, pullOnly, setPublicDate, storeFile, syncRun, type RemoteProc } from './support.js';

// A conflict's choice ("theirs", a merged value, deleting a child the server deleted) writes here.
// Those writes were made as the first super-user, whoever chose: the change log and the record's
// history named someone who never saw the conflict. They are now the choosing user's.

const TEXT = SYNTH.field('Medium Text');
const MS = SYNTH.field('Multiple Select');
const NOTES = SYNTH.childField(3);
const CHOOSER = { email: 'chooser@test.local', password: 'chooser-password-1' };

let remote: RemoteProc;
let local: TestService;
let remoteId: number;
let chooser: { user: User; token: string };
attachedPair(12, (p) => ({ remote, local, remoteId } = p));

beforeAll(async () => {
  // A second super-user here, created after the admin: never the first one.
  const user = await local.service.domain.users.create({ ...CHOOSER, isSuper: true });
  expect(local.service.domain.users.firstSuperUser()!.id).not.toBe(user.id);
  chooser = { user, token: (await local.loginAs(CHOOSER.email, CHOOSER.password)).token! };
});

const conflictOf = (rec: string, field: string) => {
  const c = local.service.sync.conflicts().filter((x) => x.record_uuid === rec && x.field_uuid === field);
  expect(c).toHaveLength(1);
  return c[0]!;
};
const lastSeq = () => local.service.ctx.db.prepare('SELECT COALESCE(MAX(seq), 0) FROM change_log').pluck().get() as number;

/**
 * POST /local/sync/conflicts/{id} as the chooser; answers who the change-log rows it wrote name
 * (user ids, one per row), and their operations.
 */
async function choose(id: number, choice: string, value?: unknown): Promise<{ users: number[]; ops: string[] }> {
  const from = lastSeq();
  const res = await fetch(`${local.host.url}/local/sync/conflicts/${id}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${chooser.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(value === undefined ? { choice } : { choice, value }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const rows = local.service.ctx.db.prepare('SELECT user_id, op FROM change_log WHERE seq > ? ORDER BY seq').all(from) as {
    user_id: number;
    op: string;
  }[];
  return { users: rows.map((r) => r.user_id), ops: rows.map((r) => r.op) };
}

/** The newest history entry of a record's field, from GET /local/records/{uuid}/history as the admin. */
async function newestHistory(rec: string, field: string | null) {
  const res = await fetch(`${local.host.url}/local/records/${rec}/history`, { headers: { Authorization: `Bearer ${local.admin.token}` } });
  expect(res.status).toBe(200);
  return RecordHistory.parse(await res.json()).entries.find((e) => e.field_uuid === field);
}

const run = () => syncRun(local, remoteId);

describe('a conflict chosen by a second super-user', () => {
  it('"theirs" of a value: written here as the chooser, so named in the history', async () => {
    const rec = SYNTH.record(1);
    await remote.client.setValue(rec, TEXT, 'theirs');
    await local.admin.setValue(rec, TEXT, 'mine');
    await run();
    const wrote = await choose(conflictOf(rec, TEXT).id, 'theirs');
    expect(wrote.ops).toEqual(['value.set']);
    expect(wrote.users).toEqual([chooser.user.id]);
    expect(await newestHistory(rec, TEXT)).toMatchObject({ new: 'theirs', user: { email: CHOOSER.email } });
  });

  it('a merged value: written here as the chooser', async () => {
    const rec = SYNTH.record(2);
    await remote.client.setValue(rec, TEXT, 'theirs');
    await local.admin.setValue(rec, TEXT, 'mine');
    await run();
    const wrote = await choose(conflictOf(rec, TEXT).id, 'merged', 'both');
    expect(wrote.ops).toEqual(['value.set']);
    expect(wrote.users).toEqual([chooser.user.id]);
    expect(await newestHistory(rec, TEXT)).toMatchObject({ new: 'both', user: { email: CHOOSER.email } });
  });

  it('"theirs" of an option: selected here as the chooser', async () => {
    const rec = SYNTH.record(4);
    const here = (await local.admin.record(rec)).fields.find((f) => f.field_uuid === MS)?.values?.map((v) => v.template_radio_option_uuid);
    const x = [1, 2, 3, 4, 5].map((k) => SYNTH.option('Multiple Select', k)).find((o) => !here?.includes(o))!;
    await local.admin.setOption(rec, MS, x, true);
    await local.admin.setOption(rec, MS, x, false);
    await remote.client.setOption(rec, MS, x, true);
    await run();
    const wrote = await choose(conflictOf(rec, MS).id, 'theirs');
    expect(wrote.ops).toEqual(['option.select']);
    expect(wrote.users).toEqual([chooser.user.id]);
  });

  it('"theirs" of a public date: set here as the chooser', async () => {
    const rec = SYNTH.record(5);
    await setPublicDate(remote.client, rec, '2032-01-01 00:00:00');
    await setPublicDate(local.admin, rec, '2033-01-01 00:00:00');
    await run();
    const wrote = await choose(conflictOf(rec, PUBLIC_DATE_FIELD).id, 'theirs');
    expect(wrote.ops).toEqual(['record.public']);
    expect(wrote.users).toEqual([chooser.user.id]);
    expect(await newestHistory(rec, null)).toMatchObject({ op: 'record.public', user: { email: CHOOSER.email } });
  });

  it('"theirs" of a child the server deleted: deleted here as the chooser', async () => {
    const rec = SYNTH.record(10);
    // Its file stored here: the record is merged on a pull, which is where the conflict is found.
    await storeFile(local.admin, rec, 'kept.txt');
    await run();
    const child = (await local.admin.record(rec)).records[0]!.record_uuid;
    await local.admin.setValue(child, NOTES, 'edited here');
    await remote.client.deleteRecords([child]);
    await pullOnly(local, remoteId);
    const wrote = await choose(conflictOf(child, RECORD_DELETED_FIELD).id, 'theirs');
    expect(wrote.ops).toContain('record.delete');
    expect(new Set(wrote.users)).toEqual(new Set([chooser.user.id]));
    const kids = (r: OdrRecord) => r.records.map((c) => c.record_uuid);
    expect(kids(await local.admin.record(rec))).not.toContain(child);
  });
});
