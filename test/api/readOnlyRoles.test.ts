import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackedJob } from '../../shared/schemas/job.js';
import { SYNTH } from '../../bench/synthetic.js';
import { writeMark } from '../support/digest.js';
import { ADMIN, USER, startSyntheticService, type TestService } from '../support/service.js';

// A read-only role (`view_only`, `view`) grants reading and nothing else: no new records, no
// writes to records its holder made before the role was set, and no ODR-export import into the
// dataset (records or template). permissionMatrix.test.ts runs the record routes for role
// holders on records others made; this file covers the routes that write without an existing
// record to check (create, import) and the holder's own records.

const DS = SYNTH.dataset;
const TEXT = SYNTH.field('Long Text');
const RADIO = SYNTH.field('Single Radio');
const FILE = SYNTH.field('File');
const ROLES = { viewonly: 'view_only', viewer: 'view_all', editor: 'edit_all', former: 'view_only' } as const;
type Who = keyof typeof ROLES | 'other' | 'super';
const EMAIL = (who: Who) => (who === 'other' ? USER.email : who === 'super' ? ADMIN.email : `${who}@test.local`);
const PASSWORD = (who: Who) => (who === 'other' ? USER.password : who === 'super' ? ADMIN.password : `${who}-password-1`);

let t: TestService;
const tokens = {} as Record<Who, string>;
/** A record `former` made (with a value and a file) before being given view_only. */
const own = { rec: '', file: '' };

async function call(who: Who, method: string, path: string, body?: { json?: unknown; form?: FormData | URLSearchParams }) {
  const base = path.startsWith('/local/') ? t.host.url : t.api;
  const headers: Record<string, string> = { Authorization: `Bearer ${tokens[who]}` };
  let payload: string | FormData | URLSearchParams | undefined = body?.form;
  if (body?.json !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  }
  const res = await fetch(`${base}${path}`, { method, headers, body: payload, redirect: 'manual' });
  return { status: res.status, text: await res.text() };
}

function upload(rec: string): FormData {
  const f = new FormData();
  f.set('dataset_uuid', DS);
  f.set('record_uuid', rec);
  f.set('field_uuid', FILE);
  f.set('file', new Blob(['some bytes'], { type: 'text/plain' }), 'notes.txt');
  return f;
}

beforeAll(async () => {
  t = await startSyntheticService(3);
  for (const who of Object.keys(ROLES) as (keyof typeof ROLES)[])
    await t.service.domain.users.create({ email: EMAIL(who), password: PASSWORD(who) });
  for (const who of [...Object.keys(ROLES), 'other', 'super'] as Who[]) {
    const r = await fetch(`${t.api}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: EMAIL(who), password: PASSWORD(who) }),
    });
    tokens[who] = ((await r.json()) as { token: string }).token;
  }
  // `former` has no role yet: on the public dataset they may add and fill a record of their own.
  const created = await call('former', 'POST', `/dataset/${DS}/record`, { form: new URLSearchParams({}) });
  expect(created.status, created.text).toBe(200);
  own.rec = (JSON.parse(created.text) as { record_uuid: string }).record_uuid;
  const filled = await call('former', 'POST', `/record/${own.rec}/${TEXT}/value`, { json: { value: 'mine' } });
  expect(filled.status, filled.text).toBe(200);
  expect((await call('former', 'POST', '/file', { form: upload(own.rec) })).status).toBe(302);
  const read = await t.admin.request<{ fields: { field_uuid: string; files?: { file_uuid: string }[] }[] }>(
    'GET',
    `/dataset/record/${own.rec}`,
  );
  own.file = read.fields.find((f) => f.field_uuid === FILE)!.files![0]!.file_uuid;
  for (const [who, permission] of Object.entries(ROLES)) {
    const granted = await call('super', 'POST', '/user/permissions', {
      form: new URLSearchParams({ user_email: EMAIL(who as Who), dataset_uuid: DS, permission }),
    });
    expect(granted.status, granted.text).toBe(200);
  }
});
afterAll(() => t.close());

/** Runs `req` as `who` and checks it was refused with a JSON error and wrote nothing. */
async function refused(who: Who, method: string, path: string, body?: Parameters<typeof call>[3]) {
  const before = writeMark(t.service);
  const res = await call(who, method, path, body);
  expect(res.status, `${who} ${method} ${path}: ${res.text}`).toBe(403);
  expect(JSON.parse(res.text).error.message).toMatch(/may not/);
  expect(writeMark(t.service), `${who} ${method} ${path} changed data`).toBe(before);
}

describe('read-only roles write nothing', () => {
  it('view_only and view holders may not add records; editors, super-users and users without a role on a public dataset may', async () => {
    for (const who of ['viewonly', 'viewer', 'former'] as const)
      await refused(who, 'POST', `/dataset/${DS}/record`, { form: new URLSearchParams({}) });
    for (const who of ['editor', 'super', 'other'] as const)
      expect((await call(who, 'POST', `/dataset/${DS}/record`, { form: new URLSearchParams({}) })).status).toBe(200);
  });

  it('a record its holder made before the role was set: every write is refused, reads still work', async () => {
    const r = own.rec;
    expect((await call('former', 'GET', `/dataset/record/${r}`)).status).toBe(200);
    const writes: [string, string, Parameters<typeof call>[3]?][] = [
      ['POST', `/record/${r}/${TEXT}/value`, { json: { value: 'changed' } }],
      ['PUT', `/record/${r}/${RADIO}/${SYNTH.option('Single Radio', 1)}/selected`],
      ['POST', '/dataset/record', { json: { record_uuid: r, fields: [{ field_uuid: TEXT, value: 'changed' }] } }],
      ['POST', '/dataset/record', { json: { record_uuid: r, records: [{ record_uuid: '', database_uuid: SYNTH.child }] } }],
      ['POST', '/dataset/record/public', { form: new URLSearchParams({ user_email: EMAIL('former'), dataset_uuid: DS, record_uuid: r }) }],
      ['POST', '/file', { form: upload(r) }],
      ['DELETE', `/file/${own.file}`],
      ['DELETE', `/record/${r}`],
      ['POST', `/local/datasets/${DS}/batch`, { json: { records: [r], change: { kind: 'public', public: true } } }],
    ];
    for (const [method, path, body] of writes) await refused('former', method, path, body);
  });
});

describe('ODR-export import into an existing dataset', () => {
  async function importJob(who: Who, json: unknown, replace = false): Promise<TrackedJob> {
    const fd = new FormData();
    if (replace) fd.set('replace', '1');
    fd.set('file', new Blob([JSON.stringify(json)], { type: 'application/json' }), 'export.json');
    const res = await call(who, 'POST', '/local/import', { form: fd });
    expect(res.status, res.text).toBe(202);
    const id = (JSON.parse(res.text) as TrackedJob).id;
    for (let i = 0; i < 600; i++) {
      const list = await call(who, 'GET', '/local/jobs');
      const job = (JSON.parse(list.text) as { jobs: TrackedJob[] }).jobs.find((j) => j.id === id)!;
      if (job.state !== 'running') return job;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the import job did not end within 30 s');
  }
  const stored = () => t.admin.request<{ records: unknown[] }>('GET', `/dataset/${DS}/1000/0`).then((l) => JSON.stringify(l.records));

  it('records (new or replacing) need the right to edit the whole dataset', async () => {
    const source = await t.admin.request<Record<string, unknown>>('GET', `/dataset/record/${SYNTH.record(1)}`);
    const replaced = { ...source, records: [], fields: [{ field_uuid: TEXT, value: 'overwritten by an import' }] };
    const added = { ...replaced, record_uuid: 'f1e2d3c4b5a6978812345678abcd', internal_id: 0 };
    for (const who of ['viewonly', 'viewer', 'other'] as const) {
      const before = await stored();
      for (const [json, replace] of [
        [{ records: [added] }, false],
        [{ records: [replaced] }, true],
      ] as const) {
        const job = await importJob(who, json, replace);
        expect(job.state, `${who}: ${job.error}`).toBe('failed');
        expect(job.error).toMatch(/may not import records into dataset/);
      }
      expect(await stored(), `${who}'s refused import changed the dataset`).toBe(before);
    }
    const job = await importJob('editor', { records: [added] });
    expect(job.state, job.error ?? '').toBe('complete');
    expect(await stored()).toContain(added.record_uuid);
  });

  it('a template export over an existing dataset needs its admin', async () => {
    const template = await t.admin.request<unknown>('GET', `/template/${DS}`);
    const job = await importJob('editor', template);
    expect(job.state).toBe('failed');
    expect(job.error).toMatch(/may not change the template/);
    expect(JSON.stringify(await t.admin.request('GET', `/template/${DS}`))).toBe(JSON.stringify(template));
    expect((await importJob('super', template)).state).toBe('complete');
  });
});
