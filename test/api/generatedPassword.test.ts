import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserCreated } from '../../shared/schemas/users.js';
import { ADMIN, startSyntheticService, type TestService } from '../support/service.js';

// POST /local/users without a password: the service picks one and answers it, once, so the
// screen that added the user can show it. Before, nobody could ever learn it.

let t: TestService;
let admin: string;
beforeAll(async () => {
  t = await startSyntheticService(1);
  admin = await login(ADMIN.email, ADMIN.password);
});
afterAll(() => t.close());

/** POST /token's status for these credentials. */
async function token(email: string, password: string) {
  const r = await fetch(`${t.api}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: email, password }),
  });
  return { status: r.status, body: (await r.json()) as { token?: string } };
}
async function login(email: string, password: string) {
  const r = await token(email, password);
  expect(r.status).toBe(200);
  return r.body.token!;
}

async function add(body: object) {
  const r = await fetch(`${t.host.url}/local/users`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(r.status).toBe(200);
  return UserCreated.parse(await r.json());
}

describe('POST /local/users: the generated password', () => {
  it('is answered when none was given, and signs the new user in', async () => {
    const u = await add({ email: 'generated@test.local' });
    expect(u.generated_password).toMatch(/^.{8,}$/);
    expect((await token('generated@test.local', u.generated_password!)).status).toBe(200);
    expect((await token('generated@test.local', `${u.generated_password!}x`)).status).not.toBe(200);
    // Only once: the list never carries it.
    const list = await fetch(`${t.host.url}/local/users`, { headers: { Authorization: `Bearer ${admin}` } });
    expect(await list.text()).not.toContain(u.generated_password!);
  });

  it('is absent when the admin chose the password', async () => {
    const u = await add({ email: 'chosen@test.local', password: 'chosen-password-1' });
    expect(u).not.toHaveProperty('generated_password');
    expect((await token('chosen@test.local', 'chosen-password-1')).status).toBe(200);
  });

  it('differs between two users', async () => {
    const a = await add({ email: 'gen-a@test.local' });
    const b = await add({ email: 'gen-b@test.local' });
    expect(a.generated_password).not.toBe(b.generated_password);
  });
});
