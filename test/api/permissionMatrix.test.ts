import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTimestamp, PRIVATE_DATE } from '../../shared/dates.js';
import { SYNTH } from '../../bench/synthetic.js';
import { digestAll, writeMark } from '../support/digest.js';
import { ADMIN, USER, startSyntheticService, type TestService } from '../support/service.js';

// Every record route × (owner, other ordinary user, super-user, dataset owner, and a holder of
// each dataset role: view_only, view, edit, admin) × (public, private, scheduled record),
// compared with the README's permission rules:
//   "super-users, a dataset's owner and its admin role administer it; view and edit roles see
//    every record of it, edit also writes them; view_only sees a non-public dataset's public
//    records; other users see public records and their own, and edit or delete only their own."
// Then every dataset-level route (template, listings, search, quota, create, thumbnails,
// granting, delete) × the same users on a non-public dataset.
// A refused request answers 403 (404 for file downloads), shows none of the record's values
// and changes nothing: no row written (the connection's change count, rolled-back writes
// included) and no file stored, and a digest of every table and of the content store.

type Who = 'owner' | 'other' | 'super' | 'dsadmin' | 'viewonly' | 'viewer' | 'editor' | 'roleadmin';
type State = 'public' | 'private' | 'scheduled';
const WHO: Who[] = ['owner', 'other', 'super', 'dsadmin', 'viewonly', 'viewer', 'editor', 'roleadmin'];
const STATES: State[] = ['public', 'private', 'scheduled'];
/** The role each role holder gets on both datasets, by the route a client would use. */
const ROLE_GRANTS: Partial<Record<Who, string>> = { viewonly: 'view_only', viewer: 'view_all', editor: 'edit_all', roleadmin: 'admin' };

const RULES = {
  read: (who: Who, state: State) => !['other', 'viewonly'].includes(who) || state === 'public',
  edit: (who: Who) => ['owner', 'super', 'dsadmin', 'editor', 'roleadmin'].includes(who),
  /** Dataset level: who sees a non-public dataset, who administers it. */
  seeDataset: (who: Who) => !['owner', 'other'].includes(who),
  administer: (who: Who) => ['super', 'dsadmin', 'roleadmin'].includes(who),
  /** Adds records to a non-public dataset: read-only roles (view_only, view) may not (readOnlyRoles.test.ts). */
  addRecords: (who: Who) => ['super', 'dsadmin', 'editor', 'roleadmin'].includes(who),
};

const DS = SYNTH.dataset;
const TEXT = SYNTH.field('Long Text');
const RADIO = SYNTH.field('Single Radio');
const TAGS = SYNTH.field('Tags');
const FILE = SYNTH.field('File');
const OPT = (i: number) => SYNTH.option('Single Radio', i);

interface Target {
  rec: string;
  child: string;
  file: string;
  secret: string;
  publicDate: string;
}

interface Route {
  name: string;
  /** read: the record itself; edit: a write to it; list: a listing that must include it iff readable. */
  kind: 'read' | 'edit' | 'list';
  /** The status a refused read answers (file downloads hide existence with 404). */
  refused?: number;
  /** An edit that changes nothing even when allowed: it may share the per-state record. */
  noop?: boolean;
  req: (t: Target, email: string) => { method: string; path: string; json?: unknown; form?: FormData | URLSearchParams };
}

const ROUTES: Route[] = [
  { name: 'GET /dataset/record/R', kind: 'read', req: (t) => ({ method: 'GET', path: `/dataset/record/${t.rec}` }) },
  { name: 'GET /search/record/R', kind: 'read', req: (t) => ({ method: 'GET', path: `/search/record/${t.rec}` }) },
  { name: 'GET /dataset/record/R.json', kind: 'read', req: (t) => ({ method: 'GET', path: `/dataset/record/${t.rec}.json` }) },
  { name: 'GET /dataset/record/CHILD', kind: 'read', req: (t) => ({ method: 'GET', path: `/dataset/record/${t.child}` }) },
  { name: 'GET /file/F', kind: 'read', refused: 404, req: (t) => ({ method: 'GET', path: `/file/${t.file}` }) },
  { name: 'GET /dataset/DS', kind: 'list', req: () => ({ method: 'GET', path: `/dataset/${DS}/1000/0` }) },
  { name: 'GET /search/database/DS/records', kind: 'list', req: () => ({ method: 'GET', path: `/search/database/${DS}/records` }) },
  { name: 'GET /dataset/DS/modified/records/0', kind: 'list', req: () => ({ method: 'GET', path: `/dataset/${DS}/modified/records/0` }) },
  { name: 'GET /local/datasets/DS/records', kind: 'list', req: () => ({ method: 'GET', path: `/local/datasets/${DS}/records?limit=500` }) },
  {
    name: 'POST /dataset/DS/search (every record)',
    kind: 'list',
    req: () => ({ method: 'POST', path: `/dataset/${DS}/search/0/0`, json: { fields: [] } }),
  },
  {
    name: 'GET /dataset/search/KEY/0/0/1 (ids)',
    kind: 'list',
    req: () => ({ method: 'GET', path: `/dataset/search/${b64({ dt_id: String(dsId) })}/0/0/1` }),
  },
  {
    name: 'GET /search/KEY/0/0 (template key)',
    kind: 'list',
    req: () => ({ method: 'GET', path: `/search/${b64({ template_uuid: DS })}/0/0` }),
  },
  {
    name: 'POST /dataset/record {record_uuid} (no change)',
    kind: 'edit',
    noop: true,
    req: (t) => ({ method: 'POST', path: '/dataset/record', json: { record_uuid: t.rec } }),
  },
  {
    name: 'PUT /dataset {record_uuid} (no change)',
    kind: 'edit',
    noop: true,
    req: (t) => ({ method: 'PUT', path: '/dataset', json: { record_uuid: t.rec } }),
  },
  {
    name: 'POST /dataset/record repeating the stored value',
    kind: 'edit',
    noop: true,
    req: (t) => ({
      method: 'POST',
      path: '/dataset/record',
      json: { record_uuid: t.rec, fields: [{ field_uuid: TEXT, value: t.secret }] },
    }),
  },
  {
    name: 'POST /dataset/record with a new value',
    kind: 'edit',
    req: (t) => ({
      method: 'POST',
      path: '/dataset/record',
      json: { record_uuid: t.rec, fields: [{ field_uuid: TEXT, value: 'new value' }] },
    }),
  },
  {
    name: 'POST /dataset/record repeating the public date',
    kind: 'edit',
    noop: true,
    req: (t) => ({ method: 'POST', path: '/dataset/record', json: { record_uuid: t.rec, public_date: t.publicDate } }),
  },
  {
    name: 'POST /dataset/record naming the child (no change)',
    kind: 'edit',
    noop: true,
    req: (t) => ({ method: 'POST', path: '/dataset/record', json: { record_uuid: t.rec, records: [{ record_uuid: t.child }] } }),
  },
  {
    name: 'POST /dataset/record on the child (no change)',
    kind: 'edit',
    noop: true,
    req: (t) => ({ method: 'POST', path: '/dataset/record', json: { record_uuid: t.child } }),
  },
  {
    name: 'POST /record/R/F/value with the stored value',
    kind: 'edit',
    noop: true,
    req: (t) => ({ method: 'POST', path: `/record/${t.rec}/${TEXT}/value`, json: { value: t.secret } }),
  },
  {
    name: 'POST /record/R/F/value with another value',
    kind: 'edit',
    req: (t) => ({ method: 'POST', path: `/record/${t.rec}/${TEXT}/value`, json: { value: 'guess' } }),
  },
  {
    name: 'POST /record/R/F/value null',
    kind: 'edit',
    noop: true,
    req: (t) => ({ method: 'POST', path: `/record/${t.rec}/${TEXT}/value`, json: { value: null } }),
  },
  {
    name: 'PUT …/selected on the selected option',
    kind: 'edit',
    noop: true,
    req: (t) => ({ method: 'PUT', path: `/record/${t.rec}/${RADIO}/${OPT(1)}/selected` }),
  },
  {
    name: 'PUT …/unselected on an unselected option',
    kind: 'edit',
    noop: true,
    req: (t) => ({ method: 'PUT', path: `/record/${t.rec}/${RADIO}/${OPT(2)}/unselected` }),
  },
  {
    name: 'PUT …/selected on another option',
    kind: 'edit',
    req: (t) => ({ method: 'PUT', path: `/record/${t.rec}/${RADIO}/${OPT(2)}/selected` }),
  },
  {
    name: 'PUT …/selected on the selected tag',
    kind: 'edit',
    noop: true,
    req: (t) => ({ method: 'PUT', path: `/record/${t.rec}/${TAGS}/${SYNTH.tag(1)}/selected` }),
  },
  {
    name: 'PUT …/unselected on an unselected tag',
    kind: 'edit',
    noop: true,
    req: (t) => ({ method: 'PUT', path: `/record/${t.rec}/${TAGS}/${SYNTH.tag(9)}/unselected` }),
  },
  {
    name: 'POST /dataset/record/public (now)',
    kind: 'edit',
    req: (t, email) => ({
      method: 'POST',
      path: '/dataset/record/public',
      form: new URLSearchParams({ user_email: email, dataset_uuid: DS, record_uuid: t.rec }),
    }),
  },
  {
    name: 'POST /dataset/record/public (its own date)',
    kind: 'edit',
    noop: true,
    req: (t, email) => ({
      method: 'POST',
      path: '/dataset/record/public',
      form: new URLSearchParams({ user_email: email, dataset_uuid: DS, record_uuid: t.rec, public_date: t.publicDate }),
    }),
  },
  {
    name: 'POST /dataset/record/public (private)',
    kind: 'edit',
    req: (t, email) => ({
      method: 'POST',
      path: '/dataset/record/public',
      form: new URLSearchParams({ user_email: email, dataset_uuid: DS, record_uuid: t.rec, public_date: PRIVATE_DATE }),
    }),
  },
  { name: 'POST /file', kind: 'edit', req: (t) => ({ method: 'POST', path: '/file', form: uploadForm(t.rec, 'matrix.txt') }) },
  { name: 'DELETE /file/F', kind: 'edit', req: (t) => ({ method: 'DELETE', path: `/file/${t.file}` }) },
  { name: 'DELETE /record/R', kind: 'edit', req: (t) => ({ method: 'DELETE', path: `/record/${t.rec}` }) },
  {
    name: 'DELETE /record {record_uuids}',
    kind: 'edit',
    req: (t) => ({ method: 'DELETE', path: '/record', json: { record_uuids: [t.rec] } }),
  },
  { name: 'DELETE /record/CHILD', kind: 'edit', req: (t) => ({ method: 'DELETE', path: `/record/${t.child}` }) },
];

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
let dsId = 0;

function uploadForm(rec: string, name: string, publicDate = '2020-01-01 00:00:00'): FormData {
  const f = new FormData();
  f.set('dataset_uuid', DS);
  f.set('record_uuid', rec);
  f.set('field_uuid', FILE);
  f.set('public_date', publicDate);
  f.set('file', new Blob([`bytes of ${name}`], { type: 'text/plain' }), name);
  return f;
}

let t: TestService;
const tokens = {} as Record<Who, string>;
const EMAIL: Record<Who, string> = {
  owner: 'owner@test.local',
  other: USER.email,
  super: ADMIN.email,
  dsadmin: 'dsadmin@test.local',
  viewonly: 'viewonly@test.local',
  viewer: 'viewer@test.local',
  editor: 'editor@test.local',
  roleadmin: 'roleadmin@test.local',
};
const PASSWORD = (who: Who) => (who === 'other' ? USER.password : who === 'super' ? ADMIN.password : `${who}-password-1`);
let seq = 0;

async function call(who: Who, r: { method: string; path: string; json?: unknown; form?: FormData | URLSearchParams }) {
  const base = r.path.startsWith('/local/') ? t.host.url : t.api;
  const headers: Record<string, string> = { Authorization: `Bearer ${tokens[who]}` };
  let body: string | FormData | URLSearchParams | undefined;
  if (r.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(r.json);
  } else body = r.form;
  const res = await fetch(`${base}${r.path}`, { method: r.method, headers, body, redirect: 'manual' });
  return { status: res.status, text: await res.text() };
}

async function ok(who: Who, r: Parameters<typeof call>[1]) {
  const res = await call(who, r);
  if (res.status >= 400) throw new Error(`${r.method} ${r.path} → ${res.status} ${res.text}`);
  return res.text ? JSON.parse(res.text.startsWith('{') ? res.text : '{}') : {};
}

/** A fresh record of `state`, made by its owner: a secret value, an option, a tag, a child, a file. */
async function makeRecord(state: State): Promise<Target> {
  const n = ++seq;
  const secret = `s${n}${state.slice(0, 3)}q${(n * 7919).toString(36)}`;
  const publicDate =
    state === 'public' ? '2021-06-01 10:00:00' : state === 'scheduled' ? formatTimestamp(new Date(Date.now() + 86_400_000)) : PRIVATE_DATE;
  const created = await ok('owner', {
    method: 'POST',
    path: `/dataset/${DS}/record`,
    form: new URLSearchParams({ public_date: publicDate }),
  });
  const rec = created.record_uuid as string;
  await ok('owner', {
    method: 'POST',
    path: '/dataset/record',
    json: {
      record_uuid: rec,
      fields: [
        { field_uuid: TEXT, value: secret },
        { field_uuid: RADIO, values: [{ template_radio_option_uuid: OPT(1) }] },
        { field_uuid: TAGS, tags: [{ template_tag_uuid: SYNTH.tag(1) }] },
      ],
      records: [
        {
          record_uuid: '',
          database_uuid: SYNTH.child,
          public_date: '2020-01-01 00:00:00',
          fields: [{ field_uuid: SYNTH.childField(1), value: `${secret}-child` }],
        },
      ],
    },
  });
  const res = await call('owner', { method: 'POST', path: '/file', form: uploadForm(rec, `${secret}.txt`) });
  expect(res.status).toBe(302);
  const rendered = await ok('owner', { method: 'GET', path: `/dataset/record/${rec}` });
  const child = rendered.records[0].record_uuid as string;
  const file = rendered.fields.find((f: { field_uuid: string }) => f.field_uuid === FILE).files[0].file_uuid as string;
  return { rec, child, file, secret, publicDate };
}

beforeAll(async () => {
  t = await startSyntheticService(2);
  const d = t.service.domain;
  const owner = await d.users.create({ email: 'owner@test.local', password: 'owner-password-1' });
  const dsadmin = await d.users.create({ email: 'dsadmin@test.local', password: 'dsadmin-password-1' });
  // The dataset admin is the dataset's owner (README: "a dataset's owner administers it").
  t.service.ctx.db.prepare('UPDATE datatypes SET owner_id = ? WHERE uuid = ?').run(dsadmin.id, DS);
  t.service.ctx.schema.changed();
  expect(owner.isSuper).toBe(false);
  const login = async (email: string, password: string) => {
    const r = await fetch(`${t.api}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: email, password }),
    });
    return ((await r.json()) as { token: string }).token;
  };
  for (const who of Object.keys(ROLE_GRANTS) as Who[]) await d.users.create({ email: EMAIL[who], password: PASSWORD(who) });
  for (const who of WHO) tokens[who] = await login(EMAIL[who], PASSWORD(who));
  dsId = d.schema().datatypesByUuid.get(DS)!.id;
  await grantRoles(DS);
});

/** Gives each role holder their role on a dataset, through POST /user/permissions. */
async function grantRoles(dataset: string) {
  for (const [who, permission] of Object.entries(ROLE_GRANTS))
    await ok('super', {
      method: 'POST',
      path: '/user/permissions',
      form: new URLSearchParams({ user_email: EMAIL[who as Who], dataset_uuid: dataset, permission }),
    });
}
afterAll(() => t.close());

const CASES = STATES.flatMap((state) => WHO.map((who) => ({ state, who })));
// Reads and refused writes leave the record as it was: they share one record per state. An
// allowed write gets a fresh record; all are made up front, 16 at a time (they share commits).
const fresh = (route: Route, who: Who) => route.kind === 'edit' && !route.noop && RULES.edit(who);
let pool: Record<State, Target>;
const targets = new Map<Route, Target[]>();
beforeAll(async () => {
  const [pub, priv, sched] = await Promise.all(STATES.map(makeRecord));
  pool = { public: pub!, private: priv!, scheduled: sched! };
  const jobs = ROUTES.flatMap((route) => CASES.map((c, i) => ({ route, i, c })));
  for (let k = 0; k < jobs.length; k += 16) {
    await Promise.all(
      jobs.slice(k, k + 16).map(async ({ route, i, c }) => {
        const list = targets.get(route) ?? [];
        targets.set(route, list);
        list[i] = fresh(route, c.who) ? await makeRecord(c.state) : pool[c.state];
      }),
    );
  }
}, 120_000);

describe('permission matrix: every record route × user × record state', () => {
  for (const route of ROUTES) {
    it(route.name, async () => {
      const failures: string[] = [];
      for (const [i, { state, who }] of CASES.entries()) {
        const target = targets.get(route)![i]!;
        const allowed = route.kind === 'edit' ? RULES.edit(who) : RULES.read(who, state);
        const before = allowed && !route.noop ? '' : writeMark(t.service);
        const res = await call(who, route.req(target, EMAIL[who]));
        const where = `${who} × ${state}: ${res.status} ${res.text.slice(0, 160)}`;
        if (route.kind === 'list') {
          if (res.status !== 200) failures.push(`${where} (a listing answers 200)`);
          if (res.text.includes(target.rec) !== allowed) failures.push(`${where} (listed: ${!allowed}, should be ${allowed})`);
          continue;
        }
        if (allowed) {
          if (res.status >= 400) failures.push(`${where} (allowed by the README)`);
          if (route.noop && writeMark(t.service) !== before) failures.push(`${where} (a write that changes nothing changed data)`);
          if (route.kind === 'read' && res.status === 200 && !route.refused && !res.text.includes(target.secret.slice(0, 6)))
            failures.push(`${where} (the record's values are missing)`);
          continue;
        }
        const expected = route.refused ?? 403;
        if (res.status !== expected) failures.push(`${where} (expected ${expected})`);
        if (res.text.includes(target.secret)) failures.push(`${who} × ${state}: the refused answer shows the record's values`);
        if (writeMark(t.service) !== before) failures.push(`${who} × ${state}: a refused request changed data`);
      }
      expect(failures).toEqual([]);
    });
  }
  it('a series of refused requests leaves every table and the content store as they were', async () => {
    const before = digestAll(t.service);
    for (const route of ROUTES.filter((r) => r.kind === 'edit')) {
      for (const state of STATES) expect((await call('other', route.req(pool[state], EMAIL.other))).status).toBe(403);
    }
    expect(digestAll(t.service)).toBe(before);
  });
});

interface DatasetRoute {
  name: string;
  /** status: 2xx iff allowed, else 403; listed: 200 always, the dataset in the answer iff allowed. */
  kind: 'status' | 'listed';
  allowed: (who: Who) => boolean;
  /** An allowed call that removes the dataset: it gets a fresh one. */
  consumes?: boolean;
  req: (ds: string) => { method: string; path: string; json?: unknown; form?: FormData | URLSearchParams };
}

const DATASET_ROUTES: DatasetRoute[] = [
  { name: 'GET /template/DS', kind: 'status', allowed: RULES.seeDataset, req: (ds) => ({ method: 'GET', path: `/template/${ds}` }) },
  {
    name: 'GET /search/database/DS/records',
    kind: 'status',
    allowed: RULES.seeDataset,
    req: (ds) => ({ method: 'GET', path: `/search/database/${ds}/records/0/0` }),
  },
  {
    name: 'POST /dataset/DS/search',
    kind: 'status',
    allowed: RULES.seeDataset,
    req: (ds) => ({ method: 'POST', path: `/dataset/${ds}/search/0/0`, json: { fields: [] } }),
  },
  {
    name: 'GET /dataset/quota/DS',
    kind: 'status',
    allowed: RULES.seeDataset,
    req: (ds) => ({ method: 'GET', path: `/dataset/quota/${ds}` }),
  },
  {
    name: 'GET /dataset/DS/modified_files/0',
    kind: 'status',
    allowed: RULES.seeDataset,
    req: (ds) => ({ method: 'GET', path: `/dataset/${ds}/modified_files/0` }),
  },
  { name: 'GET /search/databases', kind: 'listed', allowed: RULES.seeDataset, req: () => ({ method: 'GET', path: '/search/databases' }) },
  { name: 'GET /local/datasets', kind: 'listed', allowed: RULES.seeDataset, req: () => ({ method: 'GET', path: '/local/datasets' }) },
  {
    name: 'POST /dataset/DS/record',
    kind: 'status',
    allowed: RULES.addRecords,
    req: (ds) => ({ method: 'POST', path: `/dataset/${ds}/record`, form: new URLSearchParams({}) }),
  },
  {
    name: 'POST /local/thumbnails/DS (job)',
    kind: 'status',
    allowed: RULES.administer,
    req: (ds) => ({ method: 'POST', path: `/local/thumbnails/${ds}` }),
  },
  {
    name: 'POST /user/permissions on DS',
    kind: 'status',
    allowed: RULES.administer,
    req: (ds) => ({
      method: 'POST',
      path: '/user/permissions',
      form: new URLSearchParams({ user_email: 'grantee@test.local', dataset_uuid: ds, permission: 'view_only' }),
    }),
  },
  { name: 'GET /jsonld/DS', kind: 'status', allowed: RULES.seeDataset, req: (ds) => ({ method: 'GET', path: `/jsonld/${ds}` }) },
  {
    name: 'POST /dataset/publish',
    kind: 'status',
    allowed: RULES.administer,
    consumes: true, // it makes the dataset public
    req: (ds) => ({ method: 'POST', path: '/dataset/publish', form: new URLSearchParams({ dataset_uuid: ds }) }),
  },
  {
    name: 'DELETE /dataset/DS',
    kind: 'status',
    allowed: RULES.administer,
    consumes: true,
    req: (ds) => ({ method: 'DELETE', path: `/dataset/${ds}` }),
  },
];

/** A non-public dataset owned by the dataset owner, every role granted on it, with one private record. */
async function privateDataset(name: string): Promise<string> {
  const created = await call('super', {
    method: 'POST',
    path: '/dataset',
    form: new URLSearchParams({ template_uuid: DS, dataset_name: name, user_email: EMAIL.dsadmin }),
  });
  expect(created.status).toBe(302);
  const uuid = t.service.domain
    .schema()
    .topLevel()
    .find((dt) => dt.name === name)!.uuid;
  await grantRoles(uuid);
  return uuid;
}

describe('permission matrix: dataset routes × user, on a non-public dataset', () => {
  let shared: string;
  let n = 0;
  beforeAll(async () => {
    await t.service.domain.users.create({ email: 'grantee@test.local', password: 'grantee-password-1' });
    shared = await privateDataset('Private for the matrix');
  });
  for (const route of DATASET_ROUTES) {
    it(route.name, async () => {
      const failures: string[] = [];
      for (const who of WHO) {
        const allowed = route.allowed(who);
        const ds = allowed && route.consumes ? await privateDataset(`Consumed ${++n}`) : shared;
        const before = writeMark(t.service);
        const res = await call(who, route.req(ds));
        const where = `${who}: ${res.status} ${res.text.slice(0, 160)}`;
        if (route.kind === 'listed') {
          if (res.status !== 200) failures.push(`${where} (a listing answers 200)`);
          if (res.text.includes(ds) !== allowed) failures.push(`${where} (listed: ${!allowed}, should be ${allowed})`);
        } else if (allowed) {
          if (res.status >= 400) failures.push(`${where} (allowed by the README)`);
        } else {
          if (res.status !== 403) failures.push(`${where} (expected 403)`);
          if (writeMark(t.service) !== before) failures.push(`${who}: a refused request changed data`);
        }
      }
      expect(failures).toEqual([]);
    });
  }
});
