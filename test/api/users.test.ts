import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_DATE } from '../../shared/dates.js';
import { ErrorBody } from '../../shared/schemas/common.js';
import { PermissionAnswer, UserAnswer, UserList, UserSummary } from '../../shared/schemas/users.js';
import { openDatabase } from '../../electron/service/store/db.js';
import { userStore } from '../../electron/service/store/users.js';
import { SYNTH } from '../../bench/synthetic.js';
import { digestAll } from '../support/digest.js';
import { ADMIN, USER, startSyntheticService, type TestService } from '../support/service.js';

// POST /user, POST /user/permissions and the /local/users routes over real HTTP: who may call
// them, what bad input answers (4xx, error body, nothing changed), and that a role or a
// super-user flag counts from the very next request — on the token cache's fast path too, and
// when another connection (the CLI, a second process) made the change.

let t: TestService;
const tokens = {} as { admin: string; user: string; peer: string };
const PEER = { email: 'peer@test.local', password: 'peer-password-1' };
let privateRec: string;

async function login(email: string, password: string): Promise<string> {
  const r = await fetch(`${t.api}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: email, password }),
  });
  expect(r.status).toBe(200);
  return ((await r.json()) as { token: string }).token;
}

async function call(token: string | null, method: string, p: string, body?: Record<string, string> | object, asJson = false) {
  const url = p.startsWith('/local/') ? `${t.host.url}${p}` : `${t.api}${p}`;
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  let payload: string | undefined;
  if (body !== undefined && asJson) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  } else if (body !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(body as Record<string, string>).toString();
  }
  const res = await fetch(url, { method, headers, body: payload, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, json: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text };
}

/** A refused request: its status, ODR's error body naming the problem, and no change anywhere. */
async function refused(status: number, message: RegExp, req: () => ReturnType<typeof call>) {
  const before = digestAll(t.service);
  const res = await req();
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  expect(ErrorBody.parse(res.json).error.message).toMatch(message);
  expect(digestAll(t.service)).toBe(before);
}

const grant = (token: string, email: string, permission: string, dataset = SYNTH.dataset) =>
  call(token, 'POST', '/user/permissions', { user_email: email, dataset_uuid: dataset, permission });

beforeAll(async () => {
  t = await startSyntheticService(3);
  await t.service.domain.users.create({ email: PEER.email, password: PEER.password, isSuper: true });
  tokens.admin = await login(ADMIN.email, ADMIN.password);
  tokens.user = await login(USER.email, USER.password);
  tokens.peer = await login(PEER.email, PEER.password);
  const made = await call(tokens.admin, 'POST', `/dataset/${SYNTH.dataset}/record`, { public_date: PRIVATE_DATE });
  privateRec = made.json.record_uuid;
});
afterAll(() => t.close());

describe('POST /user', () => {
  it('refuses without a token, with a short email and for a non-super-user, changing nothing', async () => {
    await refused(401, /JWT Token not found/, () => call(null, 'POST', '/user', { user_email: 'x@test.local' }));
    await refused(404, /User Email Parameter/, () => call(tokens.admin, 'POST', '/user', { user_email: 'a@b' }));
    await refused(404, /User Email Parameter/, () => call(tokens.admin, 'POST', '/user', {}));
    await refused(403, /super-user/, () => call(tokens.user, 'POST', '/user', { user_email: 'x@test.local' }));
    await refused(400, /not an email address/, () => call(tokens.admin, 'POST', '/user', { user_email: 'no at sign' }));
  });

  it('adds a user once, keeps them on a second call, and lists the datasets they own', async () => {
    const first = await call(tokens.admin, 'POST', '/user', { user_email: 'new@test.local', first_name: 'Nova', last_name: 'Lee' });
    expect(first.status).toBe(200);
    expect(UserAnswer.parse(first.json)).toEqual({ user_email: 'new@test.local', datasets: [] });
    const u = t.service.domain.users.findByEmail('new@test.local')!;
    expect(u.display).toBe('Nova Lee');
    expect(u.isSuper).toBe(false);

    // A dataset created for them (act-as) is theirs: its first record is listed.
    const created = await call(tokens.admin, 'POST', '/dataset', {
      template_uuid: SYNTH.dataset,
      dataset_name: 'Nova data',
      user_email: 'new@test.local',
    });
    expect(created.status).toBe(302);
    const again = await call(tokens.admin, 'POST', '/user', { user_email: 'new@test.local' });
    const answer = UserAnswer.parse(again.json);
    expect(answer.datasets).toHaveLength(1);
    expect(answer.datasets[0]!.database_uuid).toBe(
      t.service.domain
        .schema()
        .topLevel()
        .find((d) => d.name === 'Nova data')!.uuid,
    );
    expect(t.service.domain.users.all().filter((x) => x.email === 'new@test.local')).toHaveLength(1);
  });
});

describe('POST /user/permissions', () => {
  it('answers 4xx with the error body for every bad input, changing nothing', async () => {
    await refused(401, /JWT Token not found/, () =>
      call(null, 'POST', '/user/permissions', { user_email: USER.email, dataset_uuid: SYNTH.dataset, permission: 'view_all' }),
    );
    await refused(400, /Dataset UUID is required/, () =>
      call(tokens.admin, 'POST', '/user/permissions', { user_email: USER.email, permission: 'admin' }),
    );
    await refused(400, /Permission type is required/, () =>
      call(tokens.admin, 'POST', '/user/permissions', { user_email: USER.email, dataset_uuid: SYNTH.dataset }),
    );
    await refused(400, /user_email is required/, () =>
      call(tokens.admin, 'POST', '/user/permissions', { dataset_uuid: SYNTH.dataset, permission: 'admin' }),
    );
    await refused(400, /permission must be one of/, () => grant(tokens.admin, USER.email, 'owner'));
    await refused(404, /unrecognized email: "ghost@test.local"/, () => grant(tokens.admin, 'ghost@test.local', 'view_all'));
    await refused(404, /Datatype can't be found/, () => grant(tokens.admin, USER.email, 'view_all', 'nosuchdataset'));
    await refused(400, /child datatype/, () => grant(tokens.admin, USER.email, 'view_all', SYNTH.child));
    await refused(400, /Super-Admin/, () => grant(tokens.admin, PEER.email, 'view_all'));
    // A non-super-user who administers nothing: 403 whether or not the email exists.
    await refused(403, /Insufficient permissions/, () => grant(tokens.user, 'ghost@test.local', 'view_all'));
    await refused(403, /the dataset's owner and admins may grant/, () => grant(tokens.user, 'new@test.local', 'view_all'));
    await refused(403, /the dataset's owner and admins may grant/, () => grant(tokens.user, '', 'admin'));
  });

  it('a role counts from the next request, on the cached-token fast path too, and revoking takes it back', async () => {
    const read = () => call(tokens.user, 'GET', `/dataset/record/${privateRec}`);
    // Twice: the second read is served by the host's fast path (token known, record cached).
    expect((await read()).status).toBe(403);
    expect((await read()).status).toBe(403);
    const g = await grant(tokens.admin, USER.email, 'view_all');
    expect(g.status).toBe(200);
    expect(PermissionAnswer.parse(g.json)).toEqual({ success: 'true' });
    expect((await read()).status).toBe(200);
    expect((await read()).json.record_uuid).toBe(privateRec);
    // view is not edit
    const write = () => call(tokens.user, 'POST', `/record/${privateRec}/${SYNTH.field('Short Text')}/value`, { value: 'by user' }, true);
    expect((await write()).status).toBe(403);
    expect((await grant(tokens.admin, USER.email, 'edit_all')).status).toBe(200);
    expect((await write()).status).toBe(200);
    expect((await grant(tokens.admin, USER.email, 'none')).status).toBe(200);
    expect((await read()).status).toBe(403);
    expect((await read()).status).toBe(403);
    expect((await write()).status).toBe(403);
  });

  it('a dataset admin grants on their dataset but not on their own role; the same grant twice changes nothing', async () => {
    expect((await grant(tokens.admin, USER.email, 'admin')).status).toBe(200);
    expect((await grant(tokens.user, 'new@test.local', 'view_only')).status).toBe(200);
    const before = digestAll(t.service);
    expect((await grant(tokens.user, 'new@test.local', 'view_only')).status).toBe(200);
    expect(digestAll(t.service)).toBe(before);
    await refused(400, /own group membership/, () => grant(tokens.user, '', 'view_all'));
    expect((await grant(tokens.admin, USER.email, 'none')).status).toBe(200);
    await refused(403, /the dataset's owner and admins may grant/, () => grant(tokens.user, 'new@test.local', 'none'));
  });
});

describe('/local/users and super-user changes', () => {
  it('lists users with their roles for super-users only', async () => {
    await grant(tokens.admin, USER.email, 'view_all');
    const res = await call(tokens.admin, 'GET', '/local/users');
    expect(res.status).toBe(200);
    const list = UserList.parse(res.json);
    expect(list.users.find((u) => u.email === USER.email)!.roles).toEqual([
      { dataset_uuid: SYNTH.dataset, dataset_name: expect.any(String), role: 'view' },
    ]);
    expect(list.users.find((u) => u.email === ADMIN.email)!.super_user).toBe(true);
    await refused(403, /super-user/, () => call(tokens.user, 'GET', '/local/users'));
  });

  it('POST /local/users adds a new user in one step and never touches an existing one (409, nothing changed)', async () => {
    const made = await call(
      tokens.admin,
      'POST',
      '/local/users',
      { email: 'fresh@test.local', password: 'fresh-secret-1', super_user: true },
      true,
    );
    expect(made.status, JSON.stringify(made.json)).toBe(200);
    expect(UserSummary.parse(made.json)).toMatchObject({ email: 'fresh@test.local', super_user: true, roles: [] });
    expect(await login('fresh@test.local', 'fresh-secret-1')).toMatch(/\./);
    // An existing user's email: refused whole, their password and status kept.
    await refused(409, /already a user/, () =>
      call(tokens.admin, 'POST', '/local/users', { email: USER.email, password: 'taken-over-1', super_user: true }, true),
    );
    await refused(409, /already a user/, () => call(tokens.admin, 'POST', '/local/users', { email: USER.email.toUpperCase() }, true));
    expect(await login(USER.email, USER.password)).toMatch(/\./);
    expect(t.service.domain.users.findByEmail(USER.email)!.isSuper).toBe(false);
    await refused(400, /password/, () => call(tokens.admin, 'POST', '/local/users', { email: 'x1@test.local', password: 'short' }, true));
    await refused(400, /not an email address/, () => call(tokens.admin, 'POST', '/local/users', { email: 'no at sign' }, true));
    await refused(400, /Unrecognized key|unrecognized/i, () =>
      call(tokens.admin, 'POST', '/local/users', { email: 'x2@test.local', is_admin: true }, true),
    );
    await refused(403, /super-user/, () => call(tokens.user, 'POST', '/local/users', { email: 'x3@test.local' }, true));
    // Later cases count on two super-users only.
    expect((await call(tokens.admin, 'PUT', `/local/users/${UserSummary.parse(made.json).id}`, { super_user: false }, true)).status).toBe(
      200,
    );
  });

  it('PUT /local/users/{id}: bad input is a 4xx naming it, nothing changed', async () => {
    const id = t.service.domain.users.findByEmail(USER.email)!.id;
    await refused(400, /password/, () => call(tokens.admin, 'PUT', `/local/users/${id}`, { password: 'short' }, true));
    await refused(400, /Unrecognized key|unrecognized/i, () => call(tokens.admin, 'PUT', `/local/users/${id}`, { is_admin: true }, true));
    await refused(400, /JSON/, () => call(tokens.admin, 'PUT', `/local/users/${id}`));
    await refused(404, /User can't be found/, () => call(tokens.admin, 'PUT', '/local/users/99999', { first_name: 'x' }, true));
    await refused(403, /super-user/, () => call(tokens.user, 'PUT', `/local/users/${id}`, { super_user: true }, true));
  });

  it('a demoted super-user loses every super-user right at once (token cache, act-as, fast path)', async () => {
    const peerId = t.service.domain.users.findByEmail(PEER.email)!.id;
    const read = () => call(tokens.peer, 'GET', `/dataset/record/${privateRec}`);
    expect((await read()).status).toBe(200);
    expect((await read()).status).toBe(200); // fast path, token cached
    expect((await call(tokens.peer, 'GET', '/local/users')).status).toBe(200);
    const demoted = await call(tokens.admin, 'PUT', `/local/users/${peerId}`, { super_user: false }, true);
    expect(demoted.status).toBe(200);
    expect(UserSummary.parse(demoted.json).super_user).toBe(false);
    expect((await read()).status).toBe(403);
    expect((await call(tokens.peer, 'GET', '/local/users')).status).toBe(403);
    await refused(403, /act for another user/, () =>
      call(tokens.peer, 'POST', '/dataset/record/public', { user_email: USER.email, dataset_uuid: SYNTH.dataset, record_uuid: privateRec }),
    );
    expect((await call(tokens.admin, 'PUT', `/local/users/${peerId}`, { super_user: true }, true)).status).toBe(200);
    expect((await read()).status).toBe(200);
  });

  it('the last super-user cannot be demoted; a new password lets the user log in with it', async () => {
    const peerId = t.service.domain.users.findByEmail(PEER.email)!.id;
    await call(tokens.admin, 'PUT', `/local/users/${peerId}`, { super_user: false }, true);
    const adminId = t.service.domain.users.findByEmail(ADMIN.email)!.id;
    await refused(409, /last super-user/, () => call(tokens.admin, 'PUT', `/local/users/${adminId}`, { super_user: false }, true));
    const id = t.service.domain.users.findByEmail('new@test.local')!.id;
    expect((await call(tokens.admin, 'PUT', `/local/users/${id}`, { password: 'a-new-password' }, true)).status).toBe(200);
    expect(await login('new@test.local', 'a-new-password')).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it("a change made by another connection (the CLI, a second process) counts from this service's next request", async () => {
    const read = () => call(tokens.user, 'GET', `/dataset/record/${privateRec}`);
    await grant(tokens.admin, USER.email, 'none');
    expect((await read()).status).toBe(403);
    expect((await read()).status).toBe(403);
    const other = openDatabase(path.join(t.dataDir, 'odr.sqlite'));
    try {
      const userId = t.service.domain.users.findByEmail(USER.email)!.id;
      const dtId = t.service.domain.schema().datatypesByUuid.get(SYNTH.dataset)!.id;
      userStore(other).setRole(userId, dtId, 'view', userId, '2026-01-01 00:00:00');
      expect((await read()).status).toBe(200);
      userStore(other).setRole(userId, dtId, null, userId, '2026-01-01 00:00:00');
      expect((await read()).status).toBe(403);
    } finally {
      other.close();
    }
  });

  it('roles go with a deleted dataset to the trash and come back with it', async () => {
    expect((await call(tokens.admin, 'POST', '/dataset', { template_uuid: SYNTH.dataset, dataset_name: 'Roles trip' })).status).toBe(302);
    const dt = t.service.domain
      .schema()
      .topLevel()
      .find((d) => d.name === 'Roles trip')!;
    expect((await grant(tokens.admin, USER.email, 'edit_all', dt.uuid)).status).toBe(200);
    const roleOf = () => t.service.domain.users.findByEmail(USER.email)!.roles;
    expect([...roleOf().values()]).toContain('edit');
    expect((await call(tokens.admin, 'DELETE', `/dataset/${dt.uuid}`)).status).toBe(200);
    // The cascade removed the role row, and the cached user saw it (users_rev moved by trigger).
    expect([...roleOf().entries()].some(([id]) => id === dt.id)).toBe(false);
    const trash = await call(tokens.admin, 'GET', '/local/trash');
    const entry = trash.json.datasets.find((e: { dataset_uuid: string }) => e.dataset_uuid === dt.uuid);
    expect((await call(tokens.admin, 'POST', `/local/trash/${entry.id}/restore`)).status).toBe(200);
    const back = t.service.domain.schema().datatypesByUuid.get(dt.uuid)!;
    expect(roleOf().get(back.id)).toBe('edit');
  });
});
