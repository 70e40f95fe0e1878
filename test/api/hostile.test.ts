import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { digestAll, writeMark } from '../support/digest.js';
import { startSyntheticService, USER, type TestService } from '../support/service.js';
import { seededRandom as rng } from '../../shared/seededRandom.js';

// Hostile input (issue 11): a few thousand generated requests across every route — malformed
// and deeply nested JSON, wrong types, huge strings, unknown and traversal uuids, NUL bytes,
// wrong content types, truncated multipart, corrupt files, wrong methods — from a seeded
// generator (HOSTILE_SEED=n replays a run; HOSTILE_COUNT=n changes its size). Asserted: no 5xx,
// the service alive, and no refused request writes anything (per request: the connection's
// change count and the content store; per batch of refused requests: a digest of every table).

const SEED = Number(process.env.HOSTILE_SEED ?? 20261123);
const COUNT = Number(process.env.HOSTILE_COUNT ?? 2500);
const TIME_LIMIT_MS = 45_000;
const BATCH = 250;

let t: TestService;
let fileUuid = '';
let jobId = 0;
let otherToken = '';

interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  note: string;
}

const R = SYNTH.record(1);
const TEXT = SYNTH.field('Long Text');
const INT = SYNTH.field('Integer');
const RADIO = SYNTH.field('Single Radio');
const TAGS = SYNTH.field('Tags');
const IMAGE = SYNTH.field('Image');

function generator(seed: number) {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const chance = (p: number) => rand() < p;

  const badIds = () =>
    pick([
      'ffffffffffffffffffffffffffff',
      '..%2F..%2F..%2Fetc%2Fpasswd',
      '..',
      '%2e%2e',
      'a%00b',
      '%00',
      'x'.repeat(5000),
      '%E2%80%AE',
      '-1',
      '0',
      '1e400',
      'null',
      '%7B%7D',
      `${R}%2F..`,
      '%3Cscript%3E',
      'é',
      '%ff%fe',
    ]);
  const id = (good: string) => (chance(0.5) ? good : badIds());
  const hugeString = () => pick(['x'.repeat(200_000), '\u0000'.repeat(1000), 'é'.repeat(50_000), '\ud800'.repeat(100)]);
  const weird = (): unknown =>
    pick<() => unknown>([
      () => null,
      () => true,
      () => -1,
      () => 1e308,
      () => 1.5,
      () => '',
      () => hugeString(),
      () => [],
      () => ({}),
      () => ['a', 1],
      () => ({ $ne: 1 }),
      () => 'a\u0000b',
      () => '2200-13-45 99:99:99',
      () => ({ __proto__: { admin: true } }),
      () => JSON.parse('{"constructor":{"prototype":{"x":1}}}'),
      () => nested(200),
    ])();
  const nested = (n: number): unknown => {
    let v: unknown = 'leaf';
    for (let i = 0; i < n; i++) v = chance(0.5) ? [v] : { records: [v] };
    return v;
  };

  // Valid-looking bodies per route, then corrupted.
  const saveBody = () => ({
    record_uuid: id(R),
    database_uuid: chance(0.8) ? SYNTH.dataset : weird(),
    fields: chance(0.2)
      ? weird()
      : [
          {
            field_uuid: id(pick([TEXT, INT, RADIO, TAGS, IMAGE])),
            value: weird(),
            values: chance(0.3) ? weird() : undefined,
            tags: chance(0.3) ? [{ template_tag_uuid: weird() }] : undefined,
            files: chance(0.3) ? [{ file_uuid: id(fileUuid), display_order: weird() }] : undefined,
          },
        ],
    records: chance(0.3)
      ? [{ record_uuid: pick(['', badIds()]), database_uuid: chance(0.5) ? SYNTH.child : weird(), fields: weird() }]
      : undefined,
    public_date: chance(0.3) ? weird() : undefined,
  });

  const mutateJson = (v: unknown): string => {
    const text = JSON.stringify(v) ?? 'null';
    switch (Math.floor(rand() * 7)) {
      case 0:
        return text.slice(0, Math.floor(rand() * text.length)); // truncated
      case 1:
        return text.replace(/"/, "'"); // not JSON
      case 2:
        return `${text}${text}`; // two values
      case 3:
        return '['.repeat(5000) + ']'.repeat(5000); // deeply nested
      case 4:
        return text.replace(/:/, ':\u0000'); // NUL
      case 5:
        return JSON.stringify(weird());
      default:
        return text;
    }
  };

  const multipart = (fields: Record<string, string>, file: Uint8Array | null, truncate: boolean) => {
    const b = '----hostile' + Math.floor(rand() * 1e9);
    const parts: Buffer[] = [];
    for (const [k, v] of Object.entries(fields))
      parts.push(Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
    if (file) {
      parts.push(
        Buffer.from(
          `--${b}\r\nContent-Disposition: form-data; name="file"; filename="${pick(['x.png', '../../etc/passwd', 'a\u0000.jpg', 'é.tif', ''])}"\r\nContent-Type: ${pick(['image/png', 'text/html', ''])}\r\n\r\n`,
        ),
      );
      parts.push(Buffer.from(file), Buffer.from('\r\n'));
    }
    parts.push(Buffer.from(`--${b}--\r\n`));
    let body = Buffer.concat(parts);
    if (truncate) body = body.subarray(0, Math.floor(rand() * body.length));
    return {
      body: new Uint8Array(body),
      type: chance(0.9)
        ? `multipart/form-data; boundary=${b}`
        : pick(['multipart/form-data', 'multipart/form-data; boundary=', 'application/json']),
    };
  };

  const corruptFile = (good: Uint8Array): Uint8Array => {
    const b = Buffer.from(good);
    switch (Math.floor(rand() * 5)) {
      case 0:
        return new Uint8Array(b.subarray(0, Math.floor(rand() * b.length)));
      case 1:
        for (let i = 20; i < b.length; i += 7) b[i] = Math.floor(rand() * 256);
        return new Uint8Array(b);
      case 2:
        return new Uint8Array(0);
      case 3:
        return new Uint8Array(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>x</script></svg>'));
      default:
        return new Uint8Array(Buffer.concat([b.subarray(0, 8), Buffer.alloc(500, 0x41)]));
    }
  };

  type Maker = (png: Uint8Array) => Omit<Req, 'headers'> & { type?: string };
  const json = (method: string, path: string, v: unknown): ReturnType<Maker> => ({
    method,
    path,
    body: mutateJson(v),
    type: chance(0.85) ? 'application/json' : pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', '']),
    note: 'json',
  });
  const form = (method: string, path: string, f: Record<string, string>): ReturnType<Maker> => {
    const enc = new URLSearchParams(f).toString();
    return {
      method,
      path,
      body: chance(0.7) ? enc : enc.slice(0, Math.floor(rand() * enc.length)),
      type: chance(0.8) ? 'application/x-www-form-urlencoded' : pick(['application/json', 'text/plain', 'multipart/form-data']),
      note: 'form',
    };
  };
  const enc = (x: string) => {
    try {
      return encodeURIComponent(x);
    } catch {
      return '%ED%A0%80';
    }
  };
  const str = () =>
    String(
      pick<() => unknown>([
        () => badIds(),
        () => hugeString().slice(0, 3000),
        () => '2020-01-01',
        () => 'now',
        () => '',
        () => '\u0000',
        () => '-5',
      ])(),
    );

  const makers: Maker[] = [
    () => ({ method: 'GET', path: `/api/v4/dataset/record/${id(R)}`, note: 'get' }),
    () => ({ method: 'GET', path: `/api/v4/search/record/${id(R)}.json`, note: 'get' }),
    () => ({
      method: 'GET',
      path: `/api/v4/dataset/${id(SYNTH.dataset)}/${pick(['1', '0', '-1', '99999999999', 'x'])}/${pick(['0', '5', 'a'])}`,
      note: 'list',
    }),
    () => ({
      method: 'GET',
      path: `/api/v4/search/database/${id(SYNTH.dataset)}/records/${pick(['0', '10', '1e9'])}/${pick(['0', '999999'])}`,
      note: 'ids',
    }),
    () => ({
      method: 'GET',
      path: `/api/v4/dataset/${id(SYNTH.dataset)}/modified/records/${pick(['0', 'x', '-1', '99999999999999999999'])}`,
      note: 'modified',
    }),
    () => ({
      method: 'GET',
      path: `/api/v4/${pick(['template', 'master', 'search/template', 'search/database'])}/${id(SYNTH.dataset)}`,
      note: 'template',
    }),
    () => ({ method: 'GET', path: `/api/v4/dataset/quota/${id(SYNTH.dataset)}`, note: 'quota' }),
    () => ({ method: 'GET', path: `/api/v4/file/${id(fileUuid)}`, note: 'file' }),
    () => ({
      method: 'GET',
      path: `/api/v4/search/${pick([Buffer.from(JSON.stringify(weird()) ?? 'x').toString('base64url'), badIds(), Buffer.from('{"template_uuid":"' + SYNTH.dataset + '","x":' + JSON.stringify(nested(300)) + '}').toString('base64url')])}`,
      note: 'search key',
    }),
    () => ({
      method: 'GET',
      path: `/api/v4/dataset/search/${Buffer.from(JSON.stringify({ dataset_uuid: id(SYNTH.dataset), [id(TEXT)]: weird() })).toString('base64url')}`,
      note: 'dataset search',
    }),
    () => ({
      method: 'GET',
      path: `/api/v4/search/field/${pick(['stats', 'statsbydataset', 'legacystats'])}/${id(SYNTH.dataset)}/${id(RADIO)}`,
      note: 'stats',
    }),
    () => ({
      method: 'GET',
      path: `/api/v4/job/status/${pick([String(jobId), '0', '-1', 'x', '1e9'])}/${pick(['0', '1', 'x'])}`,
      note: 'job status',
    }),
    () => ({ method: 'GET', path: `/api/v4/jobs/${id('import')}`, note: 'jobs' }),
    () => ({
      method: 'GET',
      path: `/local/datasets/${id(SYNTH.dataset)}/records?q=${enc(str())}&sort=${enc(str())}&dir=${pick(['asc', 'x'])}&limit=${pick(['1', '-1', 'x', '1e9'])}`,
      note: 'local table',
    }),
    () => json('POST', '/api/v4/dataset/record', saveBody()),
    () => json('PUT', '/api/v4/dataset', saveBody()),
    () => json('POST', '/api/v4/dataset/record', { user_email: pick([USER.email, 'nobody@x', weird()]), dataset: saveBody() }),
    () =>
      json('POST', `/api/v4/record/${id(R)}/${id(pick([TEXT, INT, RADIO, IMAGE]))}/value`, {
        value: weird(),
        user_email: chance(0.2) ? weird() : undefined,
      }),
    () => ({
      method: 'PUT',
      path: `/api/v4/record/${id(R)}/${id(pick([RADIO, TAGS, TEXT]))}/${id(pick([SYNTH.option('Single Radio', 1), SYNTH.tag(1)]))}/${pick(['selected', 'unselected', 'x', '%00'])}`,
      note: 'option',
    }),
    () => json('DELETE', '/api/v4/record', { record_uuids: chance(0.5) ? [badIds(), badIds()] : weird() }),
    () => ({ method: 'DELETE', path: `/api/v4/record/${badIds()}`, note: 'delete' }),
    () => ({ method: 'DELETE', path: `/api/v4/file/${badIds()}`, note: 'delete file' }),
    () =>
      form('POST', '/api/v4/dataset/record/public', {
        dataset_uuid: id(SYNTH.dataset),
        record_uuid: id(R),
        public_date: str(),
        user_email: pick([USER.email, 'x', '']),
      }),
    () => form('POST', `/api/v4/dataset/${id(SYNTH.dataset)}/record`, { public_date: str(), created: str(), user_email: 'x@y' }),
    () => form('POST', '/api/v4/dataset', { template_uuid: badIds(), dataset_name: str() }),
    () => json('POST', '/api/v4/token', { username: weird(), password: weird() }),
    () =>
      json('POST', '/api/v4/job', {
        user_email: weird(),
        job: { job_type: weird(), target_entity: weird(), total: weird(), additional_data: weird() },
      }),
    () => json('PUT', '/api/v4/job', { user_email: weird(), job: { tracked_job_id: pick([jobId, -1, 'x', 1e9]), completed: weird() } }),
    () =>
      json('POST', '/api/v4/worker/job', {
        job: { tracked_job_id: pick([jobId, -1, 'x']), random_key: weird(), job_order: weird(), line_count: weird() },
      }),
    () => json('POST', `/api/v4/dataset/${id(SYNTH.dataset)}/search`, { [id(TEXT)]: weird() }),
    () => json('POST', '/api/v4/search', { search_key: weird() }),
    (png) => {
      const m = multipart(
        {
          dataset_uuid: id(SYNTH.dataset),
          record_uuid: id(R),
          field_uuid: id(pick([IMAGE, SYNTH.field('File'), TEXT])),
          public_date: chance(0.5) ? str() : '',
          display_order: chance(0.3) ? str() : '',
        },
        chance(0.9) ? corruptFile(png) : null,
        chance(0.3),
      );
      return { method: 'POST', path: '/api/v4/file', body: m.body, type: m.type, note: 'upload' };
    },
    (png) => {
      // A complete, valid import would start a job that writes after the answer: only broken forms.
      const m = multipart({ replace: '1' }, chance(0.5) ? corruptFile(png) : null, true);
      return { method: 'POST', path: '/local/import', body: m.body, type: chance(0.5) ? m.type : 'application/json', note: 'import' };
    },
    () =>
      json('POST', '/local/sync/remotes', {
        url: pick(['ftp://x', 'http://127.0.0.1:1', badIds(), weird()]),
        username: weird(),
        password: weird(),
      }),
    () => json('POST', `/local/sync/conflicts/${pick(['1', '-1', 'x', badIds()])}`, { choice: weird(), value: weird() }),
    () => json('POST', '/local/sync/run', { remote_id: pick([999, -1, 'x', weird()]), datasets: weird() }),
    () => ({ method: 'POST', path: `/local/sample?records=${pick(['0', '-1', 'x', '1e9', '999999999'])}`, note: 'sample' }),
    () => ({ method: 'POST', path: `/local/thumbnails/${badIds()}`, note: 'thumbnails' }),
  ];
  // Wrong methods on real routes, and paths that are not routes.
  const wrongMethod = (): Omit<Req, 'headers'> & { type?: string } => ({
    method: pick(['PATCH', 'PUT', 'DELETE', 'POST', 'GET']),
    path: pick([
      '/api/v4/token',
      '/api/v4/dataset/record',
      `/api/v4/dataset/record/${R}`,
      '/api/v4/search/databases',
      `/api/v4/file/${fileUuid}`,
      '/local/jobs',
      '/local/datasets',
      `/api/v4/template/${SYNTH.dataset}`,
      '/api/v4/%00',
      '/api/v4/../../etc/passwd',
      '/api/v4/job',
    ]),
    body: chance(0.5) ? mutateJson(weird()) : undefined,
    type: pick(['application/json', 'text/plain']),
    note: 'method',
  });

  return (png: Uint8Array): Req => {
    const r = chance(0.08) ? wrongMethod() : pick(makers)(png);
    const auth = pick(['admin', 'admin', 'admin', 'other', 'none', 'bad']);
    const headers: Record<string, string> = {};
    if (r.type) headers['content-type'] = r.type;
    if (auth === 'admin') headers.authorization = `Bearer ${t.admin.token}`;
    if (auth === 'other') headers.authorization = `Bearer ${otherToken}`;
    if (auth === 'bad') headers.authorization = pick(['Bearer x.y.z', 'Bearer', 'Basic YTpi', `Bearer ${t.admin.token}x`]);
    return {
      method: r.method,
      path: r.path,
      headers,
      body: r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body,
      note: `${r.note} as ${auth}`,
    };
  };
}

beforeAll(async () => {
  t = await startSyntheticService(20);
  await t.service.domain.users.create({ email: 'other@test.local', password: 'other-password-1' });
  const other = await t.loginAs('other@test.local', 'other-password-1');
  otherToken = other.token!;
  const png = await sharp({ create: { width: 60, height: 40, channels: 3, background: { r: 9, g: 99, b: 199 } } })
    .png()
    .toBuffer();
  const rec = await t.admin.uploadFile(
    { dataset_uuid: SYNTH.dataset, record_uuid: R, field_uuid: IMAGE },
    { blob: new Blob([png]), name: 'seed.png' },
  );
  fileUuid = rec.fields.find((f) => f.field_uuid === IMAGE)!.files![0]!.file_uuid;
  jobId = (await t.admin.createJob({ job_type: 'hostile', target_entity: 'x', total: 3, additional_data: {} })).id;
});
afterAll(() => t.close());

describe(`hostile input (seed ${SEED})`, () => {
  it(`${COUNT} generated requests: no 5xx, nothing written by a refused request, service alive`, async () => {
    const next = generator(SEED);
    const png = new Uint8Array(
      await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 1, g: 2, b: 3 } } })
        .png()
        .toBuffer(),
    );
    const failures: string[] = [];
    const started = Date.now();
    let sent = 0;
    let batchDigest = digestAll(t.service);
    let batchClean = true;
    let retried = 0;
    const statuses = new Map<number, number>();
    for (; sent < COUNT && Date.now() - started < TIME_LIMIT_MS; sent++) {
      const req = next(png);
      const before = writeMark(t.service);
      let status: number;
      let text: string;
      try {
        const send = () =>
          fetch(`${t.host.url}${req.path}`, {
            method: req.method,
            headers: req.headers,
            body: req.body,
            redirect: 'manual',
            signal: AbortSignal.timeout(20_000),
          });
        // A kept-alive socket the server closed after an unread body can fail the next request
        // before it is sent (a client-side race): one retry on a new connection.
        const res = await send().catch((e: Error & { cause?: { code?: string } }) => {
          if (e.cause?.code !== 'UND_ERR_SOCKET' && e.cause?.code !== 'ECONNRESET') throw e;
          retried++;
          return send();
        });
        status = res.status;
        text = req.path.startsWith('/api/v4/file/') && status < 300 ? '' : await res.text();
      } catch (e) {
        failures.push(
          `#${sent} ${req.method} ${req.path.slice(0, 120)} (${req.note}): no answer: ${(e as Error).message} ${String((e as { cause?: unknown }).cause)}`,
        );
        continue;
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const where = `#${sent} ${req.method} ${req.path.slice(0, 120)} (${req.note}) → ${status} ${text.slice(0, 160)}`;
      if (status >= 500) failures.push(where);
      if (status >= 400) {
        const after = writeMark(t.service);
        if (after !== before) failures.push(`${where}: a refused request wrote data (${before.slice(0, 200)} → ${after.slice(0, 200)})`);
        if (!/^\{"error":\{"code":\d{3},"message":"/.test(text) && req.method !== 'HEAD') failures.push(`${where}: not the error body`);
      } else if (!['GET', 'HEAD'].includes(req.method)) {
        batchClean = false; // an accepted write: the batch digest starts again
      }
      if ((sent + 1) % BATCH === 0) {
        const now = digestAll(t.service);
        if (batchClean && now !== batchDigest) failures.push(`batch ending at #${sent}: only refused requests, but the tables changed`);
        batchDigest = now;
        batchClean = true;
      }
      if (failures.length > 20) break;
    }
    const alive = await fetch(`${t.api}/dataset/record/${R}`, { headers: { authorization: `Bearer ${t.admin.token}` } });
    expect(alive.status).toBe(200);
    console.log(
      `hostile: seed ${SEED}, ${sent} requests in ${Date.now() - started} ms (${retried} retried on a new connection); statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`,
    );
    expect(failures, `replay with HOSTILE_SEED=${SEED}`).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(Math.min(COUNT, 1000));
  }, 120_000);
});
