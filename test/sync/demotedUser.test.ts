import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { TrackedJob } from '../../shared/schemas/job.js';
import type { LiveStatus } from '../../shared/schemas/sync.js';
import type { User } from '../../electron/service/domain/users.js';
import { PUSH_DELAY_MS } from '../../electron/service/sync/live.js';
import type { OdrClient } from '../../shared/client/odrClient.js';
import { ADMIN, type TestService } from '../support/service.js';
import { attachedPair, gatedPair, onBothServers, syncRun, within, type GatedPair, type RemoteProc } from './support.js';

type Gate = GatedPair['gate'];

// A sync run, a push and a keep-offline download are asked for by a super-user and then go on
// for minutes. A super-user demoted meanwhile must stop them at the next batch or step, with a
// message saying who and what was done, and lose nothing: what was written stays, the rest is
// done by a later run of someone who may. The remote is a second service process reached
// through a proxy that holds one request while the user is demoted here.

const DS = SYNTH.dataset;
const SYNCER = { email: 'syncer@test.local', password: 'syncer-password-1' };
const EDITOR = { email: 'editor@test.local', password: 'editor-password-1' };
const STOPPED = /^Stopped: syncer@test\.local is no longer a super-user; /;

/** A second super-user here, the one each run below acts for; their token. */
async function addSyncer(local: TestService): Promise<{ user: User; token: string }> {
  const user = await local.service.domain.users.create({ ...SYNCER, isSuper: true });
  return { user, token: (await local.loginAs(SYNCER.email, SYNCER.password)).token! };
}

/** A user who may edit the synthetic dataset and nothing more (granted as the real server does); their client. */
async function addEditor(local: TestService): Promise<OdrClient> {
  await local.service.domain.users.create(EDITOR);
  const res = await fetch(`${local.api}/user/permissions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${local.admin.token}` },
    body: new URLSearchParams({ user_email: EDITOR.email, dataset_uuid: DS, permission: 'edit' }),
  });
  expect(res.status, await res.text()).toBe(200);
  return local.loginAs(EDITOR.email, EDITOR.password);
}

/** PUT /local/users/{id} as the admin: the syncer is a super-user no more. */
async function demote(local: TestService, id: number): Promise<void> {
  const res = await fetch(`${local.host.url}/local/users/${id}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${local.admin.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ super_user: false }),
  });
  expect(res.status, await res.text()).toBe(200);
}

async function localCall(local: TestService, token: string, method: string, path: string, body: unknown) {
  const res = await fetch(`${local.host.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** The job once it has ended (bounded wait). */
async function ended(local: TestService, id: number, owner = SYNCER.email): Promise<TrackedJob> {
  for (let i = 0; i < 600; i++) {
    const job = local.service.domain.jobs.get(local.service.domain.users.findByEmail(owner)!, id);
    if (job.state !== 'running') return job;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${id} never ended`);
}

/**
 * A sync run as `user`, who is demoted here while the gate holds the request `match` picks: the
 * run's error, and what was written here as that user after the demotion (change-log ops).
 */
async function runDemotedDuring(
  pair: { local: TestService; gate: Gate; remoteId: number },
  user: User,
  match: (method: string, path: string) => boolean,
): Promise<{ error: Error | null; written: unknown[] }> {
  const { local, gate, remoteId } = pair;
  const held = gate.hold(match);
  const failed = local.service.sync.run(remoteId, user, [DS]).then(
    () => null,
    (e: unknown) => e as Error,
  );
  await held.reached;
  await demote(local, user.id);
  const demotedAt = local.service.ctx.db.prepare('SELECT MAX(seq) FROM change_log').pluck().get() as number;
  held.release();
  const error = await failed;
  const written = local.service.ctx.db.prepare('SELECT op FROM change_log WHERE seq > ? AND user_id = ?').pluck().all(demotedAt, user.id);
  return { error, written };
}

const INT = SYNTH.field('Integer');
/** The Integer field's name in the local template. */
const nameHere = async (local: TestService) => (await local.admin.template(DS)).fields.find((f) => f.field_uuid === INT)?.name;

/** The server's template changes (its admin UI would do this; here, in its database). */
function renameOnRemote(remote: RemoteProc, name: string): void {
  const db = new Database(path.join(remote.dataDir, 'odr.sqlite'));
  db.pragma('busy_timeout = 5000');
  db.transaction(() => {
    db.prepare('UPDATE datafields SET name = ? WHERE uuid = ?').run(name, INT);
    db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'schema_rev'").run();
  })();
  db.close();
}

const topCount = (local: TestService) =>
  local.service.ctx.db
    .prepare('SELECT COUNT(*) FROM records r JOIN datatypes d ON d.id = r.datatype_id WHERE d.uuid = ? AND r.parent_rid IS NULL')
    .pluck()
    .get(DS) as number;

describe('a pull whose super-user is demoted between two batches', () => {
  let remote: RemoteProc;
  let local: TestService;
  let gate: Gate;
  let remoteId: number;
  attachedPair(250, (p) => ({ remote, local, remoteId, gate } = p as GatedPair), { gated: true, firstSync: false });

  it('stops before the next batch, says why and how far it got; a super-user then pulls the rest, none twice', async () => {
    const syncer = await addSyncer(local);
    // A first pull reads pages of 100: the second page is asked for once the first is stored.
    const second = gate.hold((method, path) => method === 'GET' && path === `/api/v4/dataset/${DS}/100/100`);
    const started = await localCall(local, syncer.token, 'POST', '/local/sync/run', { remote_id: remoteId, datasets: [DS] });
    expect(started.status, JSON.stringify(started.json)).toBe(202);
    await second.reached;
    expect(topCount(local)).toBe(100);
    await demote(local, syncer.user.id);
    second.release();
    const job = await ended(local, started.json.id as number);
    expect(job.state).toBe('failed');
    expect(job.error).toMatch(STOPPED);
    expect(job.error).toContain('100 records were pulled and 0 changes pushed');
    // The second page arrived and was not stored; the cursor did not move.
    expect(topCount(local)).toBe(100);
    expect(local.service.ctx.db.prepare('SELECT cursor FROM sync_datasets WHERE dataset_uuid = ?').pluck().get(DS)).toBeNull();

    const s = await syncRun(local, remoteId);
    expect(s.pulled).toBe(150); // the first 100 read again, unchanged since their base
    expect(topCount(local)).toBe(250);
    const remoteIds = (await remote.client.recordIds(DS)).records.map((r) => r.unique_id).sort();
    const localIds = (await local.admin.recordIds(DS)).records.map((r) => r.unique_id).sort();
    expect(localIds).toEqual(remoteIds);
  });

  it("applies none of a changed template read while its user was demoted; a super-user's run then does", async () => {
    const user = await local.service.domain.users.create({
      email: 'templater@test.local',
      password: 'templater-password-1',
      isSuper: true,
    });
    await syncRun(local, remoteId); // the dataset here, whether or not the test above ran
    const before = await nameHere(local);
    renameOnRemote(remote, 'Renamed on the server');
    const { error, written } = await runDemotedDuring(
      { local, gate, remoteId },
      user,
      (method, p) => method === 'GET' && p === `/api/v4/template/${DS}`,
    );
    expect(error?.message).toMatch(/^Stopped: templater@test\.local is no longer a super-user; /);
    expect(await nameHere(local)).toBe(before);
    expect(written, 'nothing written as the demoted user').toEqual([]);

    await syncRun(local, remoteId);
    expect(await nameHere(local)).toBe('Renamed on the server');
  });
});

const MEDIUM = SYNTH.field('Medium Text');
const LONG = SYNTH.field('Long Text');
const PARAGRAPH = SYNTH.field('Paragraph Text');
const SHORT = SYNTH.field('Short Text');
const valueOf = (r: OdrRecord, f: string) => r.fields.find((x) => x.field_uuid === f)?.value;

onBothServers((realServer) => {
  let p: GatedPair;
  gatedPair(6, realServer, (pair) => (p = pair));

  describe('a push whose super-user is demoted between two operations', () => {
    it('sends nothing more, keeps the sent ones done and the rest pending; a super-user then pushes the rest once', async () => {
      const { local, remote, remoteId, gate } = p;
      const syncer = await addSyncer(local);
      const rec = SYNTH.record(2);
      // Four operations of one record, sent one after the other in this order.
      for (const [f, v] of [
        [MEDIUM, 'medium here'],
        [LONG, 'long here'],
        [PARAGRAPH, 'paragraph here'],
        [SHORT, 'short here'],
      ] as const)
        await local.admin.setValue(rec, f, v);
      const writes = () => gate.seen.filter((s) => s.startsWith('POST ') && s.endsWith('/value')).length;
      const held = gate.hold((method, path) => method === 'POST' && path.endsWith(`/${rec}/${LONG}/value`));
      const run = local.service.sync.run(remoteId, syncer.user, [DS]);
      const failed = run.then(
        () => null,
        (e: unknown) => e as Error,
      );
      await held.reached;
      await demote(local, syncer.user.id);
      const before = writes();
      held.release();
      const e = await failed;
      expect(e?.message).toMatch(STOPPED);
      expect(e?.message).toContain('0 records were pulled and 2 changes pushed');
      expect(writes(), 'no write after the one on its way').toBe(before);
      const there = await remote.client.record(rec);
      expect([valueOf(there, MEDIUM), valueOf(there, LONG)]).toEqual(['medium here', 'long here']);
      expect(valueOf(there, PARAGRAPH)).not.toBe('paragraph here');
      expect(valueOf(there, SHORT)).not.toBe('short here');
      expect(local.service.sync.status().pending).toBe(2);

      const s = await syncRun(local, remoteId);
      expect(s.pushed).toBe(2);
      const after = await remote.client.record(rec);
      expect([MEDIUM, LONG, PARAGRAPH, SHORT].map((f) => valueOf(after, f))).toEqual([
        'medium here',
        'long here',
        'paragraph here',
        'short here',
      ]);
      expect(local.service.sync.status().pending).toBe(0);
    });

    it("applies none of the server's copy read after its writes once the user was demoted during that read", async () => {
      const { local, remote, gate } = p;
      const user = await local.service.domain.users.create({ email: 'settler@test.local', password: 'settler-password-1', isSuper: true });
      const rec = SYNTH.record(0); // one with a child record (every tenth)
      const before = valueOf(await local.admin.record(rec), SHORT);
      const child = ((await local.admin.record(rec)).records ?? [])[0]!.record_uuid;
      await local.admin.setValue(child, SYNTH.childField(3), 'child value here');
      await remote.client.setValue(rec, SHORT, 'changed on the server');
      // The child's write answers with the child: the top-level record is read again after it.
      const wrote = () => gate.seen.some((s) => s.startsWith('POST ') && s.includes(`/${child}/`));
      const { error, written } = await runDemotedDuring(
        p,
        user,
        (method, path) => method === 'GET' && path === `/api/v4/dataset/record/${rec}` && wrote(),
      );
      expect(error?.message).toMatch(/^Stopped: settler@test\.local is no longer a super-user; /);
      expect(valueOf(await local.admin.record(rec), SHORT), "the server's change is not applied").toBe(before);
      expect(written, 'nothing written as the demoted user').toEqual([]);
    });

    /**
     * A push stopped by a demotion after the server took `rec`'s first write (of `fields[0]`),
     * then the same field edited again here and pushed by a super-user: the server holds that
     * edit, and no conflict of ours against our own first value appears.
     */
    async function editAfterCut(email: string, rec: string, fields: string[]) {
      const { local, remote, remoteId, gate } = p;
      const user = await local.service.domain.users.create({ email, password: 'cut-password-1', isSuper: true });
      for (const f of fields) await local.admin.setValue(rec, f, 'first here');
      const held = gate.hold((method, path) => method === 'POST' && path.endsWith(`/${rec}/${fields[0]}/value`));
      const failed = local.service.sync.run(remoteId, user, [DS]).then(
        () => null,
        (e: unknown) => e as Error,
      );
      await held.reached;
      await demote(local, user.id);
      held.release();
      expect((await failed)?.message).toContain('no longer a super-user');
      expect(valueOf(await remote.client.record(rec), fields[0]!), 'the server took the first write').toBe('first here');
      await local.admin.setValue(rec, fields[0]!, 'second here');
      await syncRun(local, remoteId);
      expect(local.service.sync.conflicts()).toEqual([]);
      const there = await remote.client.record(rec);
      expect(fields.map((f) => valueOf(there, f))).toEqual(['second here', ...fields.slice(1).map(() => 'first here')]);
      expect(local.service.sync.status().pending).toBe(0);
    }

    it("stopped at its settle after the server took its last write: that field's next edit is pushed, no conflict with our own", async () => {
      await editAfterCut('cut-settle@test.local', SYNTH.record(1), [MEDIUM]);
    });

    it("stopped before its next operation after the server took one: that field's next edit is pushed, no conflict with our own", async () => {
      await editAfterCut('cut-between@test.local', SYNTH.record(3), [MEDIUM, LONG]);
    });

    it('applies none of a changed template its push read while the user was demoted, and writes nothing', async () => {
      const { local, remote, remoteId, gate } = p;
      const user = await local.service.domain.users.create({ email: 'pusher@test.local', password: 'pusher-password-1', isSuper: true });
      const rec = SYNTH.record(4);
      await local.admin.setValue(rec, MEDIUM, 'waits for a super-user');
      const pending = local.service.sync.status().pending;
      expect(pending).toBeGreaterThan(0);
      const before = await nameHere(local);
      renameOnRemote(remote, 'Renamed for the push');
      // A run pushes first, and a push with operations to send reads the templates before its
      // records: this is the push's template read (the pull's is tested in the pull block).
      const from = gate.seen.length;
      const { error, written } = await runDemotedDuring(p, user, (method, path) => method === 'GET' && path === `/api/v4/template/${DS}`);
      expect(error?.message).toMatch(
        /^Stopped: pusher@test\.local is no longer a super-user; 0 records were pulled and 0 changes pushed; /,
      );
      expect(await nameHere(local), 'the template read is not applied').toBe(before);
      // A login (POST /token) writes nothing there.
      const writes = gate.seen.slice(from).filter((s) => !s.startsWith('GET ') && s !== 'POST /api/v4/token');
      expect(writes, 'nothing written to the remote').toEqual([]);
      expect(valueOf(await remote.client.record(rec), MEDIUM)).not.toBe('waits for a super-user');
      expect(local.service.sync.status().pending).toBe(pending);
      expect(written, 'nothing written as the demoted user').toEqual([]);

      await syncRun(local, remoteId);
      expect(await nameHere(local)).toBe('Renamed for the push');
      expect(valueOf(await remote.client.record(rec), MEDIUM)).toBe('waits for a super-user');
    });
  });
});

describe('a keep-offline download whose super-user is demoted meanwhile', () => {
  let local: TestService;
  let gate: Gate;
  let remoteId: number;
  const FILE = SYNTH.field('File');
  const uploads = async (remote: RemoteProc) => {
    for (let i = 0; i < 12; i++)
      await remote.client.uploadFile(
        { dataset_uuid: DS, record_uuid: SYNTH.record(i), field_uuid: FILE, template_field_uuid: '' },
        { blob: new Blob([Buffer.alloc(20_000, i + 1)]), name: `bytes-${i}.bin` },
      );
  };
  attachedPair(12, (p) => ({ local, remoteId, gate } = p as GatedPair), { gated: true, beforeGate: uploads });

  it('starts no further download, says why and how many came; a super-user then downloads the rest', async () => {
    const syncer = await addSyncer(local);
    const files = local.service.sync.files;
    const todo = files.missing(DS).length;
    const ours = () => files.missing(DS).filter((f) => f.original_name.startsWith('bytes-')).length;
    expect(ours()).toBe(12);
    const downloads = () => gate.seen.filter((s) => s.startsWith('GET /api/v4/file/')).length;
    const held = gate.hold((method, path) => method === 'GET' && path.startsWith('/api/v4/file/'));
    const put = await localCall(local, syncer.token, 'PUT', '/local/sync/files-offline', {
      remote_id: remoteId,
      dataset_uuid: DS,
      keep: true,
    });
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    await held.reached;
    await demote(local, syncer.user.id);
    // Each of the other downloads at work may have passed its check just before.
    const atDemotion = downloads();
    held.release();
    const job = await ended(local, put.json.job_id as number);
    expect(job.state).toBe('failed');
    expect(job.error).toMatch(STOPPED);
    const [, got, of] = /; (\d+) of (\d+) files were downloaded; /.exec(job.error ?? '') ?? [];
    expect(Number(of)).toBe(todo);
    expect(downloads() - atDemotion, 'at most the other two downloads under way').toBeLessThanOrEqual(2);
    expect(downloads()).toBeLessThan(todo);
    const left = ours();
    expect(left).toBeGreaterThan(0);
    expect(12 - left).toBe(Number(got));

    // A super-user's download takes the rest (the synthetic files the server has no bytes for stay missing).
    const admin = local.service.domain.users.findByEmail(ADMIN.email)!;
    const again = local.service.sync.downloadOffline(remoteId, DS, admin)!;
    expect((await ended(local, again.id, ADMIN.email)).state).toBe('complete');
    expect(ours()).toBe(0);
  });
});

describe('live mode whose super-user is demoted during a pass', () => {
  let remote: RemoteProc;
  let local: TestService;
  let gate: Gate;
  const seen: LiveStatus[] = [];
  // The backoff may grow to 10 min here (30 s by default): pausedFar() can then hold the next try
  // beyond this test's own timeout, so what a test asserts before that try cannot race it.
  attachedPair(
    6,
    (p) => {
      ({ remote, local, gate } = p as GatedPair);
      local.service.ctx.events.on('sync', (s: LiveStatus) => seen.push(s));
    },
    { gated: true, local: { liveSync: true, config: { liveMaxBackoffMs: 600_000 } } },
  );

  it('stops that pass saying why, and the next one acts for the first super-user then', async () => {
    // Live mode acts for the first super-user, the admin; another super-user demotes them.
    const other = await addSyncer(local);
    const admin = local.service.domain.users.findByEmail(ADMIN.email)!;
    expect(local.service.domain.users.firstSuperUser()!.id).toBe(admin.id);
    const rec = SYNTH.record(3);
    const localValue = async () => valueOf(await local.admin.record(rec), MEDIUM);
    await remote.client.setValue(rec, MEDIUM, 'changed on the server');
    const held = gate.hold((method, path) => method === 'GET' && path === `/api/v4/dataset/record/${rec}`);
    local.service.sync.live.nudge();
    await held.reached;
    const res = await fetch(`${local.host.url}/local/users/${admin.id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${other.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ super_user: false }),
    });
    expect(res.status, await res.text()).toBe(200);
    held.release();
    // Paused with the reason, then (a retry soon after) synced as the other super-user.
    for (let i = 0; i < 300 && !(seen.some((s) => s.state === 'paused') && (await localValue()) === 'changed on the server'); i++)
      await new Promise((r) => setTimeout(r, 50));
    const paused = seen.find((s) => s.state === 'paused');
    expect(paused?.reason).toMatch(/^Stopped: admin@test\.local is no longer a super-user; 0 records were pulled and 0 changes pushed; /);
    expect(await localValue()).toBe('changed on the server');
    expect(seen.at(-1)).toMatchObject({ state: 'online', reason: null });
  });

  const lost = () => seen.filter((s) => s.state === 'paused' && s.reason === 'no super-user is left to sync as');

  /** Further than any test here runs (vitest's testTimeout is 60 s): the timer's try comes after it ends. */
  const FAR_MS = 90_000;
  /**
   * With no super-user left: live mode nudged until its pause's next try is FAR_MS away or more
   * (each nudge tries again at once and backs off further; from the 9th failure on the timer's
   * next try is 128 s away at least). That pause.
   */
  const pausedFar = async (): Promise<LiveStatus> => {
    const from = lost().length;
    const far = () => lost().length > from && Date.parse(lost().at(-1)!.next_try!) - Date.now() > FAR_MS;
    for (let k = 1; k <= 12 && !far(); k++) {
      const n = lost().length;
      local.service.sync.live.nudge();
      expect(await within(10_000, () => lost().length > n), `nudge ${k} tried again while paused`).toBe(true);
    }
    expect(far(), `the next try is ${FAR_MS} ms away or more`).toBe(true);
    return lost().at(-1)!;
  };

  it('with no super-user left, keeps retrying: each nudge tries again at once, and one after a promotion resumes it', async () => {
    const users = local.service.domain.users;
    const supers = users.all().filter((u) => u.isSuper);
    for (const u of supers) users.setSuper(u.id, false);
    const live = local.service.sync.live;
    // The timer's next try after this test's end: every try below is a nudge's own, whatever the
    // machine's speed (a bound here only limits how long a state may take to come).
    await pausedFar();
    for (let k = 1; k <= 3; k++) {
      const n = lost().length;
      live.nudge();
      expect(await within(10_000, () => lost().length > n), `nudge ${k} tried again while paused`).toBe(true);
      expect(Date.parse(lost().at(-1)!.next_try!) - Date.now(), "the timer's try still after this test").toBeGreaterThan(FAR_MS);
    }
    users.setSuper(supers[0]!.id, true);
    live.nudge();
    expect(await within(10_000, () => seen.at(-1)?.state === 'online'), 'online again at the nudge').toBe(true);
    for (const u of supers) users.setSuper(u.id, true);
  });

  /** Answers every request through the gate 503 until `done` (bounded): the remote is down meanwhile. */
  const downUntil = async (done: () => boolean) => {
    // Each turn is one request refused (a pass makes several), or 5 s without one. 45 s in all
    // (one more turn may start before then): below the test's 60 s timeout, so a stuck run reports
    // the message below, not the timeout.
    const end = Date.now() + 45_000;
    for (let i = 0; i < 20 && !done() && Date.now() < end; i++) {
      const held = gate.hold(() => true);
      const reached = await Promise.race([held.reached.then(() => true), within(5000, done).then(() => false)]);
      if (reached) held.release({ status: 503, message: 'down for the test' });
    }
    gate.hold(() => false); // nothing is held from here on
    expect(done(), 'the gate saw the failure through').toBe(true);
  };

  /** A user (not a super-user) who promotes in the tests below once made one where live mode hears nothing of it; their token. */
  const backoffPromoter = async () => {
    const users = local.service.domain.users;
    const who = { email: 'backoff@test.local', password: 'backoff-password-1' };
    const promoter = users.findByEmail(who.email) ?? (await users.create(who));
    return { promoter, token: (await local.loginAs(who.email, who.password)).token! };
  };

  it('backs off a pause and a network failure each by its own count: a promotion after many pauses meets its first failure at 1 s', async () => {
    const users = local.service.domain.users;
    const { promoter, token } = await backoffPromoter();
    const supers = users.all().filter((u) => u.isSuper);
    for (const u of supers) users.setSuper(u.id, false);
    await pausedFar(); // nine pauses or more: the next one's try would be 128 s away at least
    users.setSuper(promoter.id, true); // unheard by live mode: one who may promote
    const mark = seen.length;
    const offline = () => seen.slice(mark).find((s) => s.state === 'offline');
    // The Users screen's promotion tries at once; the remote is down for that pass.
    const res = await fetch(`${local.host.url}/local/users/${supers[0]!.id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ super_user: true }),
    });
    expect(res.status, await res.text()).toBe(200);
    await downUntil(() => offline() !== undefined);
    // The first network failure in a row waits 1 s at most; were the pauses counted, 2 min or more.
    // Read after the status was sent, so the gap only shrinks with the machine's delays.
    expect(Date.parse(offline()!.next_try!) - Date.now()).toBeLessThanOrEqual(1000);

    // And a pause after that failure is the first pause since the promotion: 1 s at most again.
    const again = seen.length;
    for (const u of users.all().filter((x) => x.isSuper)) users.setSuper(u.id, false);
    local.service.sync.live.nudge();
    const pause = () => seen.slice(again).find((s) => s.state === 'paused' && s.reason === 'no super-user is left to sync as');
    expect(await within(5000, () => pause() !== undefined), 'paused again').toBe(true);
    expect(Date.parse(pause()!.next_try!) - Date.now()).toBeLessThanOrEqual(1000);
    for (const u of supers) users.setSuper(u.id, true);
    local.service.sync.live.nudge();
    expect(await within(5000, () => seen.at(-1)?.state === 'online'), 'online once a super-user is back').toBe(true);
    users.setSuper(promoter.id, false);
  });

  it('ends the offline count when a pass reached the server before a demotion stopped it: the next failure waits 1 s', async () => {
    const users = local.service.domain.users;
    const { promoter, token } = await backoffPromoter();
    const supers = users.all().filter((u) => u.isSuper);
    // Four network failures in a row (the retry timer's passes among them): the fifth would wait 8 s or more.
    const mark = seen.length;
    const offline = (from: number) => seen.slice(from).filter((s) => s.state === 'offline');
    local.service.sync.live.nudge();
    await downUntil(() => offline(mark).length >= 4);
    // The server answers the next pass's template read; its user is demoted meanwhile.
    const held = gate.hold((method, p) => method === 'GET' && p === `/api/v4/template/${DS}`);
    local.service.sync.live.nudge();
    await held.reached;
    for (const u of supers) users.setSuper(u.id, false);
    const paused = seen.length;
    held.release();
    expect(await within(5000, () => lost().length > 0 && seen.slice(paused).some((s) => s.state === 'paused')), 'paused').toBe(true);
    // That pause's own try would come within 1 s: on a stalled machine it could run before the
    // promotion below and find its super-user, leaving live mode online and the promotion with
    // nothing to try. Put far first; those passes stop at the user, and the offline count stays 0.
    await pausedFar();
    // A promotion tries at once, and the remote is down for that pass.
    users.setSuper(promoter.id, true);
    const from = seen.length;
    const res = await fetch(`${local.host.url}/local/users/${supers[0]!.id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ super_user: true }),
    });
    expect(res.status, await res.text()).toBe(200);
    await downUntil(() => offline(from).length > 0);
    // The first failure since the server last answered: 1 s at most (counted on from four, 8 s or more).
    expect(Date.parse(offline(from)[0]!.next_try!) - Date.now()).toBeLessThanOrEqual(1000);
    for (const u of supers) users.setSuper(u.id, true);
    users.setSuper(promoter.id, false);
    local.service.sync.live.nudge();
    expect(await within(5000, () => seen.at(-1)?.state === 'online'), 'online again').toBe(true);
  });

  it('paused with no super-user, counts the edits made meanwhile and tries nothing more; a super-user back pushes them, 0 waiting', async () => {
    const users = local.service.domain.users;
    const live = local.service.sync.live;
    const editor = await addEditor(local);
    const supers = users.all().filter((u) => u.isSuper);
    for (const u of supers) users.setSuper(u.id, false);
    // Beyond this test's end: every status below comes before the timer's try.
    const last = await pausedFar();
    const edits = [
      [SYNTH.record(4), LONG, 'long while paused'],
      [SYNTH.record(5), LONG, 'long while paused too'],
    ] as const;
    const mark = seen.length;
    // One edit at a time, each count awaited: a status the last pass's own debounce timer sends
    // (it may still be due) can stand in for the first edit's, never for the second's.
    for (const [i, [rec, f, v]] of edits.entries()) {
      await editor.setValue(rec, f, v);
      const counted = () => seen.slice(mark).some((s) => s.pending === last.pending + i + 1);
      expect(await within(PUSH_DELAY_MS + 3000, counted), `edit ${i + 1} is counted as waiting`).toBe(true);
    }
    // The new count is news, not a reason to try: still paused, the next try still the timer's.
    for (const s of seen.slice(mark)) expect(s).toMatchObject({ state: 'paused', reason: last.reason, next_try: last.next_try });

    users.setSuper(supers[0]!.id, true);
    live.nudge();
    const drained = () => seen.slice(mark).some((s) => s.state === 'online' && s.pending === 0);
    expect(await within(5000, drained), 'nothing waits once live mode pushed them').toBe(true);
    for (const [rec, f, v] of edits) expect(valueOf(await remote.client.record(rec), f)).toBe(v);
    for (const u of supers) users.setSuper(u.id, true);
  });

  it('paused for want of a super-user, resumes as soon as the Users screen makes one: an edit then reaches the remote within seconds', async () => {
    const users = local.service.domain.users;
    const admin = users.findByEmail(ADMIN.email)!;
    const PROMOTER = { email: 'promoter@test.local', password: 'promoter-password-1' };
    const promoter = await users.create(PROMOTER);
    const token = (await local.loginAs(PROMOTER.email, PROMOTER.password)).token!;
    const ways = [
      ['PUT', `/local/users/${admin.id}`, { super_user: true }],
      ['POST', '/local/users', { email: 'added@test.local', password: 'added-password-1', super_user: true }],
    ] as const;
    for (const [i, [method, route, body]] of ways.entries()) {
      const supers = users.all().filter((u) => u.isSuper);
      for (const u of supers) users.setSuper(u.id, false);
      const last = await pausedFar();
      // A super-user made where live mode hears nothing of it (as the CLI's `user add --super`
      // in another process would): still paused, as far from its next try.
      users.setSuper(promoter.id, true);
      expect(seen.at(-1)).toMatchObject({ state: 'paused', next_try: last.next_try });
      const res = await fetch(`${local.host.url}${route}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, await res.text()).toBe(200);
      const rec = SYNTH.record(1);
      const value = `after promotion ${i + 1}`;
      await local.client(token).setValue(rec, MEDIUM, value);
      const edited = seen.length;
      // The edit's own push comes PUSH_DELAY_MS after it; the backoff's next try, after this test.
      // Wide: the wrong behaviour shows only at the backoff's try, FAR_MS (90 s) away or more.
      const bound = 30_000;
      expect(Date.parse(last.next_try!) - Date.now()).toBeGreaterThan(bound);
      let there: unknown;
      for (const end = Date.now() + bound; Date.now() < end && there !== value;)
        there = await new Promise((r) => setTimeout(r, 100)).then(async () => valueOf(await remote.client.record(rec), MEDIUM));
      expect(there, `${method} ${route}: the edit reached the remote before the backoff was due`).toBe(value);
      // The push that sent it ends before the next way demotes everyone: each way starts from a
      // live mode at rest (a settle cut by a demotion is tested on its own, in the push block).
      const settled = () => seen.slice(edited).some((s) => s.state === 'online' && s.pending === 0);
      expect(await within(10_000, settled), 'the push that sent it ended').toBe(true);
      for (const u of supers) users.setSuper(u.id, true);
    }
  });
});
