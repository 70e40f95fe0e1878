import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../shared/schemas/common.js';
import { SYNTH } from '../../bench/synthetic.js';
import { startSyntheticService, type TestService } from '../support/service.js';

const R = SYNTH.record(1);
const TEXT = SYNTH.field('Long Text');

let t: TestService;
beforeAll(async () => {
  t = await startSyntheticService(5, { config: { maxBodyBytes: 64 * 1024 } });
});
afterAll(() => t.close());

async function call(method: string, path: string, body?: string, type = 'application/json') {
  const res = await fetch(`${t.api}${path}`, {
    method,
    body,
    headers: { Authorization: `Bearer ${t.admin.token}`, ...(body !== undefined ? { 'content-type': type } : {}) },
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    json: (() => {
      try {
        return JSON.parse(text);
      } catch {
        return undefined;
      }
    })(),
  };
}

/** Every answer is a 4xx with the ODR error body and the store is unchanged. */
async function expectRejected(method: string, path: string, body?: string, statusRange: [number, number] = [400, 499], type?: string) {
  const before = t.digest();
  const r = await call(method, path, body, type);
  expect(r.status, `${method} ${path} ${body?.slice(0, 60)} → ${r.text.slice(0, 200)}`).toBeGreaterThanOrEqual(statusRange[0]);
  expect(r.status).toBeLessThanOrEqual(statusRange[1]);
  expect(ErrorBody.parse(r.json).error.code).toBe(r.status);
  expect(r.json.error.message.length).toBeGreaterThan(5);
  expect(t.digest()).toBe(before);
  return r;
}

const JSON_ROUTES: [string, string][] = [
  ['POST', '/dataset/record'],
  ['PUT', '/dataset'],
  ['POST', `/record/${R}/${TEXT}/value`],
  ['DELETE', '/record'],
  ['POST', '/token'],
];

describe('malformed JSON', () => {
  for (const [method, path] of JSON_ROUTES) {
    for (const body of ['{', '{"a":1,}', "{'single':'quotes'}", 'null', '"a string"', '12', '\u0000']) {
      it(`${method} ${path} ← ${JSON.stringify(body)} → 400`, async () => {
        const r = await expectRejected(method, path, body);
        expect(r.status).toBe(400);
      });
    }
  }
});

describe('wrong types', () => {
  const cases: [string, string, unknown][] = [
    ['POST', `/record/${R}/${TEXT}/value`, { value: ['a'] }],
    ['POST', `/record/${R}/${TEXT}/value`, { value: { nested: true } }],
    ['POST', `/record/${R}/${SYNTH.field('Integer')}/value`, { value: 1.5 }],
    ['POST', '/dataset/record', { record_uuid: 7 }],
    ['POST', '/dataset/record', { record_uuid: R, fields: 'not a list' }],
    ['POST', '/dataset/record', { record_uuid: R, fields: [{ field_uuid: TEXT, value: { x: 1 } }] }],
    ['POST', '/dataset/record', { record_uuid: R, fields: [{ field_uuid: 5, value: 'x' }] }],
    ['POST', '/dataset/record', { record_uuid: R, fields: [{ field_uuid: SYNTH.field('Single Radio'), values: 'x' }] }],
    [
      'POST',
      '/dataset/record',
      { record_uuid: R, fields: [{ field_uuid: SYNTH.field('Single Radio'), values: [{ template_radio_option_uuid: 3 }] }] },
    ],
    ['POST', '/dataset/record', { record_uuid: R, records: [{ database_uuid: SYNTH.child }] }],
    ['POST', '/dataset/record', { record_uuid: R, public_date: 12 }],
    ['POST', '/dataset/record', { user_email: 3, dataset: { record_uuid: R } }],
    ['DELETE', '/record', { record_uuids: [1, 2] }],
    ['DELETE', '/record', { record_uuids: 'abc' }],
    ['POST', '/token', { username: ['a'], password: 'b' }],
  ];
  it.each(cases)('%s %s ← %j → 400', async (method, path, body) => {
    const r = await expectRejected(method, path, JSON.stringify(body));
    expect(r.status).toBe(400);
  });
});

describe('unknown uuids', () => {
  const cases: [string, string, string?][] = [
    ['GET', '/dataset/record/ffffffffffffffffffffffffffff'],
    ['GET', '/template/ffffffffffffffffffffffffffff'],
    ['GET', '/dataset/ffffffffffffffffffffffffffff/10/0'],
    ['GET', '/dataset/quota/ffffffffffffffffffffffffffff'],
    ['POST', '/dataset/ffffffffffffffffffffffffffff/record'],
    ['POST', `/record/ffffffffffffffffffffffffffff/${TEXT}/value`, '{"value":"x"}'],
    ['POST', `/record/${R}/ffffffffffffffffffffffffffff/value`, '{"value":"x"}'],
    ['PUT', `/record/${R}/${SYNTH.field('Single Radio')}/ffffffffffffffffffffffffffff/selected`],
    ['POST', '/dataset/record', JSON.stringify({ record_uuid: 'ffffffffffffffffffffffffffff' })],
    ['DELETE', '/record', JSON.stringify({ record_uuids: ['ffffffffffffffffffffffffffff'] })],
    ['DELETE', '/record/ffffffffffffffffffffffffffff'],
    ['GET', '/search/database/ffffffffffffffffffffffffffff/records/0/0'],
  ];
  it.each(cases)('%s %s → 404', async (method, path, body) => {
    const r = await expectRejected(method, path, body);
    expect(r.status).toBe(404);
  });

  it('a uuid with characters outside [a-z0-9] is simply not found', async () => {
    const r = await expectRejected('GET', '/dataset/record/..%2F..%2Fetc');
    expect(r.status).toBe(404);
  });
});

describe('huge bodies', () => {
  const big = JSON.stringify({ record_uuid: R, fields: [{ field_uuid: SYNTH.field('Paragraph Text'), value: 'x'.repeat(100 * 1024) }] });
  it.each(JSON_ROUTES)('%s %s with a body over the limit → 413', async (method, path) => {
    const r = await expectRejected(method, path, big);
    expect(r.status).toBe(413);
  });

  it('a chunked body without Content-Length over the limit → 413', async () => {
    const before = t.digest();
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 100; i++) c.enqueue(new TextEncoder().encode('x'.repeat(1024)));
        c.close();
      },
    });
    const res = await fetch(`${t.api}/dataset/record`, {
      method: 'POST',
      body: stream,
      duplex: 'half',
      headers: { Authorization: `Bearer ${t.admin.token}`, 'content-type': 'application/json' },
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(t.digest()).toBe(before);
  });
});

describe('forms and routing', () => {
  it('a form with a malformed multipart body → 400', async () => {
    const r = await expectRejected(
      'POST',
      `/dataset/${SYNTH.dataset}/record`,
      '--xx\r\nbroken',
      [400, 499],
      'multipart/form-data; boundary=yy',
    );
    expect(r.status).toBe(400);
  });

  it('an unknown path → 404 with the error body', async () => {
    const r = await expectRejected('GET', '/no/such/route');
    expect(r.json.error.message).toContain('No route found');
  });

  it('OPTIONS preflights get the CORS headers', async () => {
    const res = await fetch(`${t.api}/record/${R}/${TEXT}/value`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://example.test',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(res.headers.get('access-control-max-age')).toBe('86400');
    expect(res.headers.get('access-control-expose-headers')).toContain('Content-Disposition');
  });
});
