import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networkFailureText } from '../../electron/service/sync/networkFailure.js';
import { RemoteClient } from '../../electron/service/sync/remoteClient.js';
import type { TestService } from '../support/service.js';
import { startLocal } from './support.js';

// A remote that gives no HTTP answer is named in words a user can act on, not by Node's error
// code alone ("connect ECONNREFUSED 127.0.0.1:9" read like a refused password in the Sync panel).
// Every request to a remote goes through RemoteClient's classify, so adding a remote, pulls,
// pushes and file downloads all say it the same way.

let local: TestService;
const servers: Server[] = [];
/** A loopback TCP server that does `onSocket` with every connection. */
async function tcp(onSocket: (s: import('node:net').Socket) => void): Promise<number> {
  const s = createServer(onSocket);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return (s.address() as AddressInfo).port;
}
/** A port nothing listens on: one a server had, closed again. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
async function addRemote(url: string) {
  const res = await fetch(`${local.host.url}/local/sync/remotes`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${local.admin.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, username: 'someone@lab.org', password: 'secret' }),
  });
  return { status: res.status, message: ((await res.json()) as { error: { message: string } }).error.message };
}

beforeAll(async () => {
  local = await startLocal();
});
afterAll(async () => {
  for (const s of servers) s.close();
  await local.close();
});

describe('a remote that does not answer', () => {
  it('is "cannot reach", with what to check, when nothing listens at its address', async () => {
    const port = await closedPort();
    const before = local.digest();
    const r = await addRemote(`http://127.0.0.1:${port}/api/v4`);
    expect(r.status).toBe(400);
    expect(r.message).toBe(
      `Cannot reach http://127.0.0.1:${port}/api/v4: nothing answers at 127.0.0.1:${port}: is the server running, and is the address (and port) right? (ECONNREFUSED)`,
    );
    expect(local.digest()).toBe(before);
  });

  it('says the connection was cut when the server closes it without an answer', async () => {
    const port = await tcp((s) => s.destroy());
    const r = await addRemote(`http://127.0.0.1:${port}/api/v4`);
    expect(r.status).toBe(400);
    expect(r.message).toMatch(
      new RegExp(
        `^Cannot reach http://127\\.0\\.0\\.1:${port}/api/v4: the connection was cut before the server answered \\((ECONNRESET|UND_ERR_SOCKET|EPIPE)\\)$`,
      ),
    );
  });

  it('names the same failures the same way on every request to the remote (a pull, a download)', async () => {
    const port = await closedPort();
    const client = new RemoteClient(`http://127.0.0.1:${port}/api/v4`, 'someone@lab.org', 'secret');
    await expect(client.recordRaw('a-record')).rejects.toMatchObject({
      kind: 'transient',
      message: expect.stringMatching(/^nothing answers at 127\.0\.0\.1:\d+: .*\(ECONNREFUSED\)$/),
    });
    await expect(client.download('a-file')).rejects.toMatchObject({
      kind: 'transient',
      message: expect.stringMatching(/\(ECONNREFUSED\)$/),
    });
  });

  it('says the server did not answer in time when a request times out', async () => {
    const port = await tcp(() => undefined); // accepts, never answers
    const e = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(100) }).catch((x: unknown) => x);
    expect(networkFailureText(e)).toBe('the server did not answer in time; it may be busy or the network slow');
  });

  it('a wrong password is still a refused login, not a network failure', async () => {
    // Our own service as the remote: it answers, and refuses the password.
    const r = await addRemote(`${local.host.url}/api/v4`);
    expect(r.status).toBe(400);
    expect(r.message).toMatch(/^Cannot log in to /);
  });
});

describe('networkFailureText', () => {
  // Errors as Node's resolver, router and TLS give them (the test cannot make this machine's DNS
  // or network fail on demand): the code decides, the host comes from the error.
  const nodeError = (code: string, extra: Record<string, unknown> = {}) =>
    Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(`${code} something`), { code, ...extra }) });
  it.each([
    [
      'ENOTFOUND',
      { hostname: 'odr.example.invalid' },
      'the host name odr.example.invalid could not be found: check the address, or the network connection (ENOTFOUND)',
    ],
    [
      'EAI_AGAIN',
      { hostname: 'odr.lab.org' },
      'the host name odr.lab.org could not be found: check the address, or the network connection (EAI_AGAIN)',
    ],
    [
      'EHOSTUNREACH',
      { address: '10.1.2.3', port: 443 },
      'the network cannot reach 10.1.2.3:443: check the network connection (EHOSTUNREACH)',
    ],
    ['CERT_HAS_EXPIRED', {}, "the server's certificate is not trusted (expired, self-signed, or for another name) (CERT_HAS_EXPIRED)"],
    ['UND_ERR_CONNECT_TIMEOUT', {}, 'the server did not answer in time; it may be busy or the network slow (UND_ERR_CONNECT_TIMEOUT)'],
  ])('%s', (code, extra, words) => {
    expect(networkFailureText(nodeError(code, extra))).toBe(words);
  });
  it('an unknown failure keeps its most specific message', () => {
    expect(networkFailureText(nodeError('EWHATEVER'))).toBe('EWHATEVER something');
    expect(networkFailureText(new Error('plain'))).toBe('plain');
  });
});
