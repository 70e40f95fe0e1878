import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { BULK_PULL_RECORDS } from '../../electron/service/sync/pull.js';
import { bulkIndexStore, DEFERRABLE_INDEXES } from '../../electron/service/store/bulkIndexes.js';
import { ADMIN, type TestService } from '../support/service.js';
import { startLocal, startRemote, type RemoteProc } from './support.js';

// A first pull of a large dataset is a bulk import (docs/sync.md §4): the value indexes are
// dropped while it runs and built once at its end, the search index catches up afterwards. This
// holds it to: the indexes come back exactly as they were, and searches answer as the server's.

let remote: RemoteProc;
let local: TestService;
let remoteId: number;

beforeAll(async () => {
  remote = await startRemote(BULK_PULL_RECORDS);
  local = await startLocal();
  remoteId = await local.service.sync.addRemote(remote.url, ADMIN.email, ADMIN.password);
}, 120_000);
afterAll(async () => {
  await local?.close();
  await remote?.stop();
});

type Db = TestService['service']['ctx']['db'];
const indexSql = (db: Db) =>
  DEFERRABLE_INDEXES.map((n) => db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?").pluck().get(n));

const QUERIES = [
  [{ field_uuid: SYNTH.field('Decimal'), value: '>=-100 <250.5' }],
  [{ field_uuid: SYNTH.field('Short Text'), value: '"S-000042"' }],
  [{ field_uuid: SYNTH.field('Integer'), value: '>=0 <40000' }],
  [{ field_uuid: SYNTH.field('Medium Text'), value: 'basalt' }],
];
const search = async (api: string, token: string, fields: unknown[]) =>
  (
    (await (
      await fetch(`${api}/dataset/${SYNTH.dataset}/search`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ fields }),
      })
    ).json()) as { records: { record_uuid: string }[] }
  ).records
    .map((r) => r.record_uuid)
    .sort();

describe('a first pull of a large dataset', () => {
  it('defers the value indexes while it runs, builds the same ones at its end; searches agree with the server', async () => {
    const db = local.service.ctx.db;
    const before = indexSql(db);
    expect(before.every((s) => typeof s === 'string')).toBe(true);
    // Seen after the first stored page: the pull announces each committed batch.
    let deferred: string[] | undefined;
    const watch = () => (deferred ??= bulkIndexStore(db).deferred());
    local.service.ctx.events.on('records', watch);
    const s = await local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
    local.service.ctx.events.off('records', watch);
    expect(s.error).toBeUndefined();
    expect(s.pulled).toBe(BULK_PULL_RECORDS);
    expect(deferred).toEqual([...DEFERRABLE_INDEXES]);
    expect(bulkIndexStore(db).deferred()).toEqual([]);
    expect(indexSql(db)).toEqual(before);
    const token = remote.client.token!;
    for (const q of QUERIES) {
      const theirs = await search(remote.url, token, q);
      expect(theirs.length).toBeGreaterThan(0);
      expect(await search(local.api, local.admin.token!, q)).toEqual(theirs);
    }
  });

  it('an incremental pull keeps the indexes', async () => {
    await remote.client.setValue(SYNTH.record(3), SYNTH.field('Medium Text'), 'changed there');
    const db = local.service.ctx.db;
    let deferred: string[] | undefined;
    const watch = () => (deferred ??= bulkIndexStore(db).deferred());
    local.service.ctx.events.on('records', watch);
    const s = await local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
    local.service.ctx.events.off('records', watch);
    expect(s.pulled).toBe(1);
    expect(deferred).toEqual([]);
  });
});
