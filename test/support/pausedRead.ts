import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { expect } from 'vitest';

/**
 * Sends the request and answers the response with only its first bytes read: the rest of a
 * streamed answer waits in the service until the caller reads on (`rest`).
 */
export async function started(
  api: string,
  token: string,
  method: string,
  path: string,
  body?: string,
): Promise<{ res: IncomingMessage; head: Buffer }> {
  const req = request(`${api}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
  req.end(body);
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  expect(res.statusCode).toBe(200);
  await once(res, 'readable');
  return { res, head: res.read() as Buffer };
}

/** The rest of a response's body. */
export async function rest(res: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of res) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}
