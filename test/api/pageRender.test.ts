import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OdrClient } from '../../shared/client/odrClient.js';
import { SYNTH } from '../../bench/synthetic.js';
import { recordTrees } from '../../electron/service/store/recordTrees.js';
import { valueColumns, type RecordRow } from '../../electron/service/store/rows.js';
import { seededRandom } from '../../shared/seededRandom.js';
import { ADMIN, USER, startSyntheticService, type TestService } from '../support/service.js';

// A page of records is rendered with one set of queries for all its records (recordTrees); each
// record in it must be byte for byte the record a single read renders, for every kind of viewer,
// and the page must leave the render cache as single reads of its records would.

const N = 48;
// Pages render in slices of this many top-level records (one tree read each); lowered so that
// the random pages (up to 30 records) and whole-list pages span several slices.
const CHUNK = 7;
const BOUNDARY = '2026-06-05 00:00:00';
const TIMES = ['2026-06-01T00:00:00Z', '2026-06-04T23:59:59Z', '2026-06-05T00:00:00Z', '2026-06-09T00:00:00Z'];
const OTHER = { email: 'other@test.local', password: 'other-password-1' };

let now = new Date(TIMES[0]!);
let t: TestService;
let user: OdrClient;
let other: OdrClient;
const d = () => t.service.domain;

beforeAll(async () => {
  t = await startSyntheticService(N, { clock: () => now, config: { tokenTtlSeconds: 10 * 365 * 86400, renderChunkTops: CHUNK } });
  await d().users.create({ email: OTHER.email, password: OTHER.password });
  user = await t.loginAs(USER.email, USER.password);
  other = await t.loginAs(OTHER.email, OTHER.password);
  // Records and children that turn public at BOUNDARY, and another's private child under a public record.
  for (const i of [1, 4, 7]) {
    await t.admin.setPublic({ user_email: ADMIN.email, dataset_uuid: SYNTH.dataset, record_uuid: SYNTH.record(i), public_date: BOUNDARY });
  }
  for (const i of [2, 5, 10, 20]) {
    await t.admin.save({
      record_uuid: SYNTH.record(i),
      records: [
        {
          record_uuid: '',
          database_uuid: SYNTH.child,
          public_date: i === 20 ? '2200-01-01 00:00:00' : BOUNDARY,
          fields: [{ field_uuid: SYNTH.childField(1), value: `scheduled child ${i}` }],
        },
      ],
    });
  }
  // Text JSON must escape, for the store's JSON read of values.
  for (let k = 2; k < N; k += 4)
    await t.admin.setValue(SYNTH.record(k), SYNTH.field('Medium Text'), 'a "quoted" \\ back\u0001slash, é, 😀, \u2028 and </script>');
  // REALs JSON would round and a BLOB it cannot hold (written by another process: the service stores neither).
  const db = new Database(path.join(t.dataDir, 'odr.sqlite'));
  db.pragma('busy_timeout = 2000');
  const set = db.prepare(
    'UPDATE field_values SET value = ? WHERE record_rid = (SELECT rid FROM records WHERE uuid = ?) AND datafield_id = ?',
  );
  const field = (name: Parameters<typeof SYNTH.field>[0]) => d().schema().fieldsByUuid.get(SYNTH.field(name))!.id;
  [1.0000000000000002, 123456789.12345679, 5e-324, 0.1 + 0.2, -1e300].forEach((x, i) => {
    for (let k = i; k < N; k += 5) set.run(x, SYNTH.record(k), field('Decimal'));
  });
  set.run(Buffer.from('blob'), SYNTH.record(6), field('Medium Text'));
  db.close();
  // The user's own records: one public with a private child, one private (only they and admins see it).
  for (const publicDate of ['2026-01-01 00:00:00', '2200-01-01 00:00:00']) {
    const mine = await user.createRecord(SYNTH.dataset);
    await user.setPublic({ user_email: USER.email, dataset_uuid: SYNTH.dataset, record_uuid: mine.record_uuid, public_date: publicDate });
    await user.save({
      record_uuid: mine.record_uuid,
      fields: [{ field_uuid: SYNTH.field('Short Text'), value: 'mine' }],
      records: [{ record_uuid: '', database_uuid: SYNTH.child, fields: [{ field_uuid: SYNTH.childField(1), value: 'private child' }] }],
    });
  }
});
afterAll(() => t.close());

const viewers = () => [
  { name: 'super-user', client: t.admin, user: d().users.findByEmail(ADMIN.email)! },
  { name: 'owner', client: user, user: d().users.findByEmail(USER.email)! },
  { name: 'non-owner', client: other, user: d().users.findByEmail(OTHER.email)! },
];

function page(viewer: ReturnType<typeof viewers>[number], limit: number, offset: number) {
  const o = { viewer: viewer.user, now: d().now(), apiBase: t.api };
  const rows = d().lists.page(o.viewer, d().datatype(SYNTH.dataset), limit, offset);
  return { o, rows };
}

/** The render cache's entries: key → bytes. */
const cached = () =>
  new Map(
    [...(d().ctx.renders as unknown as { entries: Map<string, { bytes: Buffer }> }).entries].map(([k, e]) => [k, e.bytes.toString()]),
  );

describe('a page renders each record as a single read does', () => {
  it('random pages, three kinds of viewer, across a public-date boundary (seeded)', async () => {
    const rand = seededRandom(Number(process.env.PAGE_RENDER_SEED ?? 20261124));
    let compared = 0;
    let reals = 0;
    let escaped = false;
    const seen = new Set<string>();
    for (let step = 0; step < 48; step++) {
      now = new Date(TIMES[Math.floor(rand() * TIMES.length)]!);
      const viewer = viewers()[step % 3]!;
      const limit = 1 + Math.floor(rand() * 30);
      const offset = Math.floor(rand() * (N - 5));
      const { o, rows } = page(viewer, limit, offset);
      const single = (r: RecordRow) => JSON.stringify(d().reader.renderRecord(r, o));
      // Uncached: the reader's batch, and the cache filled by the batch.
      d().ctx.renders.clear();
      const reads = d().reader.treeReads;
      const batch = d().reader.renderTops(rows, o);
      const parts = d().renderTopsJson(rows, o);
      expect(parts).toHaveLength(rows.length);
      // Both the reader's batch and the cache's fill read the page in slices of at most CHUNK.
      expect(d().reader.treeReads - reads).toBe(2 * Math.ceil(rows.length / CHUNK));
      rows.forEach((r, i) => {
        const one = single(r);
        expect(JSON.stringify(batch[i]), `${viewer.name} ${r.uuid}`).toBe(one);
        expect(parts[i]!.toString(), `${viewer.name} ${r.uuid} (cache)`).toBe(one);
        seen.add(`${viewer.name}\n${one}`);
        compared++;
      });
      // The rows the page was built from, against plain queries of every column (the store reads
      // values and selections as arrays, without the dates and author they share with the record).
      const tree = recordTrees(d().ctx.db)(rows.map((r) => r.rid));
      const arg = JSON.stringify(rows.map((r) => r.rid));
      const byKey = (a: { record_rid: number; datafield_id: number; item_id?: number }, b: typeof a) =>
        a.record_rid - b.record_rid || a.datafield_id - b.datafield_id || (a.item_id ?? 0) - (b.item_id ?? 0);
      const values = tree.values();
      reals += values.filter((v) => typeof v.value === 'number' && !Number.isInteger(v.value)).length;
      escaped ||= values.some((v) => typeof v.value === 'string' && v.value.includes('😀'));
      expect(values.sort(byKey)).toEqual(
        d()
          .ctx.db.prepare(
            `SELECT ${valueColumns('v', 'r')} FROM records r JOIN field_values v ON v.record_rid = r.rid
             WHERE r.top_rid IN (SELECT value FROM json_each(?)) ORDER BY 1, 2`,
          )
          .all(arg),
      );
      expect(tree.selections().sort(byKey)).toEqual(
        d()
          .ctx.db.prepare(
            `SELECT * FROM (SELECT s.record_rid, s.datafield_id, s.option_id AS item_id, s.selected_at, 0 AS is_tag FROM option_selections s
             UNION ALL SELECT t.record_rid, t.datafield_id, t.tag_id, t.selected_at, 1 FROM tag_selections t)
             WHERE record_rid IN (SELECT rid FROM records WHERE top_rid IN (SELECT value FROM json_each(?))) ORDER BY 1, 2, 3`,
          )
          .all(arg),
      );
      // Over HTTP: the same records, the cached half of the page and the rendered half mixed.
      d().ctx.renders.clear();
      d().renderTopsJson(
        rows.filter((_, i) => i % 2 === 0),
        o,
      );
      const res = await viewer.client.send('GET', `/dataset/${SYNTH.dataset}/${limit}/${offset}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(`{"count":${rows.length},"records":[${rows.map(single).join(',')}]}`);
    }
    expect(compared).toBeGreaterThan(300);
    expect(reals).toBeGreaterThan(20); // read apart from the JSON (which rounds them)
    expect(escaped).toBe(true);
    // The views really differ: hidden records and children, scheduled ones shown after BOUNDARY.
    const texts = [...seen].join('\n');
    for (const needle of ['scheduled child 2', 'private child']) expect(texts).toContain(needle);
    const byViewer = (name: string) => [...seen].filter((s) => s.startsWith(`${name}\n`)).length;
    expect(byViewer('super-user')).toBeGreaterThan(byViewer('non-owner'));
  }, 60_000);

  it('a page fills the render cache with the entries single reads make, and they serve single reads', () => {
    for (const time of [TIMES[0]!, TIMES[3]!]) {
      now = new Date(time);
      for (const viewer of viewers()) {
        const { o, rows } = page(viewer, N + 2, 0);
        d().ctx.renders.clear();
        for (const r of rows) d().ctx.renders.record(d().reader, r, o);
        const bySingle = cached();
        d().ctx.renders.clear();
        const reads = d().reader.treeReads;
        const parts = d().renderTopsJson(rows, o);
        expect(d().reader.treeReads - reads).toBe(Math.ceil(rows.length / CHUNK));
        expect(rows.length).toBeGreaterThan(3 * CHUNK);
        const byPage = cached();
        expect([...byPage.keys()].sort()).toEqual([...bySingle.keys()].sort());
        for (const [k, bytes] of byPage) expect(bytes, k).toBe(bySingle.get(k));
        // The owner's own trees are not kept (ownership widens their view): everything else is.
        expect(byPage.size).toBe(viewer.name === 'owner' ? rows.length - 2 : rows.length);
        // A single read after the page is a hit on the page's entry: the very same bytes.
        const hits = d().ctx.renders.hits;
        rows.forEach((r, i) => {
          const kept = byPage.has([...byPage.keys()].find((k) => k.endsWith(`\n${r.rid}`)) ?? '');
          const bytes = d().ctx.renders.record(d().reader, r, o);
          if (kept) expect(bytes).toBe(parts[i]);
          else expect(bytes.toString()).toBe(parts[i]!.toString());
        });
        expect(d().ctx.renders.hits - hits).toBe(byPage.size);
      }
    }
  });
});
