import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { SyncStatus } from '../../shared/schemas/sync.js';
import { ADMIN, type TestService } from '../support/service.js';
import { startLocal, startRemote, type RemoteProc } from './support.js';

const TEXT = SYNTH.field('Medium Text');
const INT = SYNTH.field('Integer');
let remote: RemoteProc;
let local: TestService;
let remoteId: number;

const value = (r: { fields: { field_uuid: string; value?: unknown }[] }, f: string) => r.fields.find((x) => x.field_uuid === f)?.value;
const run = () => local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);

beforeAll(async () => {
  remote = await startRemote(30);
  local = await startLocal();
  remoteId = await local.service.sync.addRemote(`${remote.url}`, ADMIN.email, ADMIN.password);
}, 60_000);
afterAll(async () => {
  await local?.close();
  await remote?.stop();
});

describe('sync with a remote ODR service (two processes, real HTTP)', () => {
  it('keeps the password sealed at rest', () => {
    const row = local.service.ctx.db.prepare('SELECT password_enc FROM sync_remotes').pluck().get() as string;
    expect(row).not.toContain(ADMIN.password);
    expect(row).toMatch(/^v1:/);
  });

  it('pulls the template and every record on the first sync', async () => {
    const s = await run();
    expect(s.error).toBeUndefined();
    expect(s.pulled).toBe(30);
    const mine = await local.admin.record(SYNTH.record(4));
    const theirs = await remote.client.record(SYNTH.record(4));
    expect(mine.fields.map((f) => [f.field_uuid, f.value ?? f.selected ?? null])).toEqual(
      theirs.fields.map((f) => [f.field_uuid, f.value ?? f.selected ?? null]),
    );
    expect(mine.records.length).toBe(theirs.records.length);
  });

  it('pushes a local edit and pulls a remote one; nothing echoes back', async () => {
    // The server's answer to our own write changes nothing here: the record is not written again
    // (a rewrite costs a push more than the rest of it); the record changed there is.
    const syncWrites = () =>
      [1, 2].map((i) =>
        local.service.ctx.db
          .prepare("SELECT COUNT(*) FROM change_log WHERE record_uuid = ? AND origin = 'sync'")
          .pluck()
          .get(SYNTH.record(i)),
      ) as number[];
    const before = syncWrites();
    await local.admin.setValue(SYNTH.record(1), TEXT, 'edited here');
    await remote.client.setValue(SYNTH.record(2), TEXT, 'edited there');
    const s = await run();
    expect(s.error).toBeUndefined();
    expect(value(await remote.client.record(SYNTH.record(1)), TEXT)).toBe('edited here');
    expect(value(await local.admin.record(SYNTH.record(2)), TEXT)).toBe('edited there');
    expect(syncWrites().map((n, i) => n - before[i]!)).toEqual([0, 1]);
    const again = await run();
    expect(again.pushed).toBe(0);
  });

  it('merges disjoint changes to one record field by field', async () => {
    await local.admin.setValue(SYNTH.record(3), TEXT, 'mine on 3');
    await remote.client.setValue(SYNTH.record(3), INT, 4242);
    await run();
    const l = await local.admin.record(SYNTH.record(3));
    const r = await remote.client.record(SYNTH.record(3));
    expect([value(l, TEXT), value(l, INT)]).toEqual(['mine on 3', 4242]);
    expect([value(r, TEXT), value(r, INT)]).toEqual(['mine on 3', 4242]);
  });

  it('a field changed on both sides becomes a conflict that blocks nothing else; each choice resolves it', async () => {
    await local.admin.setValue(SYNTH.record(5), TEXT, 'mine 5');
    await remote.client.setValue(SYNTH.record(5), TEXT, 'theirs 5');
    await local.admin.setValue(SYNTH.record(6), TEXT, 'unrelated 6');
    await run();
    const conflicts = local.service.sync.conflicts();
    expect(conflicts.map((c) => [c.record_uuid, c.field_uuid, c.mine, c.theirs])).toEqual([[SYNTH.record(5), TEXT, 'mine 5', 'theirs 5']]);
    expect(value(await remote.client.record(SYNTH.record(6)), TEXT)).toBe('unrelated 6');
    expect(value(await remote.client.record(SYNTH.record(5)), TEXT)).toBe('theirs 5');

    local.service.sync.resolve(conflicts[0]!.id, 'mine', local.service.domain.users.firstSuperUser()!);
    await run();
    expect(value(await remote.client.record(SYNTH.record(5)), TEXT)).toBe('mine 5');
    expect(local.service.sync.conflicts()).toEqual([]);

    await local.admin.setValue(SYNTH.record(7), TEXT, 'mine 7');
    await remote.client.setValue(SYNTH.record(7), TEXT, 'theirs 7');
    await run();
    local.service.sync.resolve(local.service.sync.conflicts()[0]!.id, 'theirs', local.service.domain.users.firstSuperUser()!);
    await run();
    expect(value(await local.admin.record(SYNTH.record(7)), TEXT)).toBe('theirs 7');
    expect(value(await remote.client.record(SYNTH.record(7)), TEXT)).toBe('theirs 7');

    await local.admin.setValue(SYNTH.record(8), TEXT, 'mine 8');
    await remote.client.setValue(SYNTH.record(8), TEXT, 'theirs 8');
    await run();
    local.service.sync.resolve(local.service.sync.conflicts()[0]!.id, 'merged', local.service.domain.users.firstSuperUser()!, 'both 8');
    await run();
    expect(value(await local.admin.record(SYNTH.record(8)), TEXT)).toBe('both 8');
    expect(value(await remote.client.record(SYNTH.record(8)), TEXT)).toBe('both 8');
  });

  it('merges option and tag selections changed on both sides as set operations; one option set both ways is a conflict', async () => {
    const MS = SYNTH.field('Multiple Select');
    const SR = SYNTH.field('Single Radio');
    const TAGS = SYNTH.field('Tags');
    const sel = (
      r: { fields: { field_uuid: string; values?: { template_radio_option_uuid: string }[]; tags?: { template_tag_uuid: string }[] }[] },
      f: string,
    ) => {
      const e = r.fields.find((x) => x.field_uuid === f);
      return (e?.values?.map((v) => v.template_radio_option_uuid) ?? e?.tags?.map((t) => t.template_tag_uuid) ?? []).sort();
    };
    const rec = SYNTH.record(11);
    const start = await local.admin.record(rec);
    const free = [1, 2, 3, 4, 5].map((k) => SYNTH.option('Multiple Select', k)).filter((o) => !sel(start, MS).includes(o));
    const radio = [1, 2, 3].map((k) => SYNTH.option('Single Radio', k)).filter((o) => !sel(start, SR).includes(o));
    const freeTags = [4, 7, 10]
      .map((k) => SYNTH.tag(k))
      .filter((t) => !sel(start, TAGS).includes(t))
      .slice(0, 2);
    await local.admin.setOption(rec, MS, free[0]!, true);
    await remote.client.setOption(rec, MS, free[1]!, true);
    await local.admin.setOption(rec, TAGS, freeTags[0]!, true);
    await remote.client.setOption(rec, TAGS, freeTags[1]!, true);
    await local.admin.setOption(rec, SR, radio[0]!, true);
    await remote.client.setOption(rec, SR, radio[1]!, true);
    await run();
    const l = await local.admin.record(rec);
    const r = await remote.client.record(rec);
    expect(sel(l, MS)).toEqual([...sel(start, MS), free[0]!, free[1]!].sort());
    expect(sel(r, MS)).toEqual(sel(l, MS));
    // A selected child tag brings its parent along, on both sides.
    expect(sel(l, TAGS)).toEqual(expect.arrayContaining([...sel(start, TAGS), ...freeTags]));
    expect(sel(r, TAGS)).toEqual(sel(l, TAGS));
    const conflicts = local.service.sync.conflicts();
    expect(conflicts.map((c) => [c.record_uuid, c.field_uuid, c.mine, c.theirs])).toEqual([
      [rec, SR, 'Single Radio option ' + radio[0]!.slice(-1), 'Single Radio option ' + radio[1]!.slice(-1)],
    ]);
    expect(sel(r, SR)).toEqual([radio[1]]);
    local.service.sync.resolve(conflicts[0]!.id, 'mine', local.service.domain.users.firstSuperUser()!);
    await run();
    expect(sel(await remote.client.record(rec), SR)).toEqual([radio[0]]);
    expect(sel(await local.admin.record(rec), SR)).toEqual([radio[0]]);
    expect(local.service.sync.conflicts()).toEqual([]);
  });

  it('creates records made here exactly once, with their values, and deletes what was deleted here', async () => {
    const before = (await remote.client.recordIds(SYNTH.dataset)).records.length;
    const rec = await local.admin.createRecord(SYNTH.dataset);
    await local.admin.setValue(rec.record_uuid, TEXT, 'born here');
    await run();
    await run();
    const ids = (await remote.client.recordIds(SYNTH.dataset)).records.map((r) => r.unique_id);
    expect(ids.length).toBe(before + 1);
    const map = local.service.ctx.db
      .prepare('SELECT remote_uuid FROM sync_id_map WHERE local_uuid = ?')
      .pluck()
      .get(rec.record_uuid) as string;
    expect(value(await remote.client.record(map), TEXT)).toBe('born here');

    await local.admin.deleteRecords([SYNTH.record(9)]);
    await run();
    expect((await remote.client.recordIds(SYNTH.dataset)).records.map((r) => r.unique_id)).not.toContain(SYNTH.record(9));
  });

  it('puts records deleted on the server in the "removed on server" bin instead of erasing them', async () => {
    await remote.client.deleteRecords([SYNTH.record(10)]);
    await run();
    expect((await local.admin.record(SYNTH.record(10))).record_uuid).toBe(SYNTH.record(10));
    expect(local.service.sync.status().removedOnServer.map((r) => (r as { record_uuid: string }).record_uuid)).toContain(SYNTH.record(10));
  });
});

describe('the /local/sync routes', () => {
  const localUrl = (p: string) => local.api.replace(/\/api\/v4$/, `/local${p}`);
  const call = async (method: string, p: string, body?: unknown, token = local.admin.token) => {
    const res = await fetch(localUrl(p), {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('answer the status in the shared shape, and run a sync as a tracked job', async () => {
    const s = await call('GET', '/sync');
    expect(s.status).toBe(200);
    const status = SyncStatus.parse(s.body);
    expect(status.remotes.map((r) => r.id)).toContain(remoteId);
    expect(JSON.stringify(s.body)).not.toContain(ADMIN.password);

    const started = await call('POST', '/sync/run', { remote_id: remoteId, datasets: [SYNTH.dataset] });
    expect(started.status).toBe(202);
    const job = await local.admin.jobStatus(started.body.id as number);
    expect(job.job_type).toBe('sync');
    for (let i = 0; i < 100; i++) {
      const j = await local.admin.jobStatus(job.id);
      if (j.state !== 'running') {
        expect(j.state, j.error ?? '').toBe('complete');
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    // A local edit counts as pending at once, before any run collects it.
    await local.admin.setValue(SYNTH.record(7), TEXT, 'waiting to be sent');
    expect((await call('GET', '/sync')).body.pending).toBe(1);
    const ds = (await call('GET', '/sync')).body.datasets as { dataset_uuid: string; last_pull: string | null }[];
    expect(ds.find((d) => d.dataset_uuid === SYNTH.dataset)?.last_pull).toBeTruthy();

    const list = await call('GET', `/sync/remotes/${remoteId}/datasets`);
    expect(list.status).toBe(200);
    expect((list.body.databases as { unique_id: string }[]).map((d) => d.unique_id)).toContain(SYNTH.dataset);
  });

  it('refuse bad input with a status and a JSON error, changing nothing', async () => {
    const before = local.digest();
    const cases: [string, string, unknown, number, RegExp][] = [
      ['POST', '/sync/remotes', { username: 'a', password: 'b' }, 400, /url is required/],
      ['POST', '/sync/remotes', { url: 'not a url', username: 'a', password: 'b' }, 400, /not a URL/],
      ['POST', '/sync/remotes', { url: 'ftp://x.org/api/v4', username: 'a', password: 'b' }, 400, /http or https/],
      ['POST', '/sync/remotes', { url: remote.url, username: ADMIN.email, password: 'wrong' }, 400, /Cannot log in/],
      ['POST', '/sync/run', { remote_id: 'one' }, 400, /remote_id must be an integer/],
      ['POST', '/sync/run', { remote_id: 999 }, 404, /Remote/],
      ['GET', '/sync/remotes/999/datasets', undefined, 404, /Remote/],
      ['POST', '/sync/conflicts/999', { choice: 'mine' }, 404, /Conflict/],
      ['POST', '/sync/conflicts/1', { choice: 'both' }, 400, /choice must be/],
    ];
    for (const [method, p, body, status, msg] of cases) {
      const r = await call(method, p, body);
      expect(r.status, `${method} ${p}`).toBe(status);
      expect((r.body.error as { message: string }).message, `${method} ${p}`).toMatch(msg);
    }
    expect(local.digest()).toBe(before);
  });

  it('are for super-users only', async () => {
    await local.service.domain.users.create({ email: 'plain@test.local', password: 'plain-password-1' });
    const plain = await local.loginAs('plain@test.local', 'plain-password-1');
    for (const [method, p] of [
      ['GET', '/sync'],
      ['POST', '/sync/run'],
    ] as const) {
      const r = await call(method, p, method === 'POST' ? { remote_id: remoteId } : undefined, plain.token);
      expect(r.status).toBe(403);
      expect((r.body.error as { code: number }).code).toBe(403);
    }
  });
});
