import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { ADMIN, startService, type TestService } from '../support/service.js';
import { gateProxy, startRemote, type RemoteProc } from './support.js';

// Before migration 024 a pull undid a refused value, option or public date here; from then on a
// pull writes a refused edit back. A refusal parked by an older version (long undone, the user
// moved on) must not come back on the first pull after the upgrade: it stays listed, and the
// server's copy wins (review 6, finding 2).

const TEXT = SYNTH.field('Medium Text');
const INT = SYNTH.field('Integer');
let remote: RemoteProc;
let gate: Awaited<ReturnType<typeof gateProxy>>;
let local: TestService | undefined;
let dataDir = '';

beforeAll(async () => {
  remote = await startRemote(3);
  gate = await gateProxy(remote.url);
}, 60_000);
afterAll(async () => {
  await local?.close();
  await gate?.stop();
  await remote?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const value = (r: OdrRecord, f: string) => r.fields.find((x) => x.field_uuid === f)?.value;

/** Turns the closed database back into what version 023 left: no `undone` column, 024 not applied. */
function asBefore024(file: string): void {
  const db = new Database(file);
  try {
    db.exec('ALTER TABLE sync_outbox DROP COLUMN undone; DELETE FROM _migrations WHERE version = 24;');
  } finally {
    db.close();
  }
}

describe('upgrading a database with refusals parked by an older version', () => {
  it('the first pull after the upgrade keeps the server value; the refusal stays listed', async () => {
    local = await startService({ keepDir: true, config: { tokenTtlSeconds: 86400 }, liveSync: false });
    dataDir = local.dataDir;
    const me = () => local!.service.domain.users.firstSuperUser()!;
    const id = await local.service.sync.addRemote(`${gate.url}/api/v4`, ADMIN.email, ADMIN.password);
    const run = async () => expect((await local!.service.sync.run(id, me(), [SYNTH.dataset])).error).toBeUndefined();
    await run();

    const rec = SYNTH.record(1);
    await local.admin.setValue(rec, TEXT, 'refused long ago');
    const held = gate.hold((method, p) => method === 'POST' && p.endsWith(`/${TEXT}/value`));
    const pass = run();
    await held.reached;
    held.release({ status: 403, message: 'refused by the test' });
    await pass;
    await local.close();
    local = undefined;

    asBefore024(path.join(dataDir, 'odr.sqlite'));
    local = await startService({ dataDir, keepDir: true, config: { tokenTtlSeconds: 86400 }, liveSync: false });
    await remote.client.setValue(rec, TEXT, 'the server moved on');
    await remote.client.setValue(rec, INT, 4242);
    await run();

    const here = await local.admin.record(rec);
    expect(value(here, TEXT)).toBe('the server moved on');
    expect(value(here, INT)).toBe(4242);
    expect(local.service.sync.conflicts().filter((c) => c.record_uuid === rec)).toEqual([]);
    expect(local.service.sync.status().needsAttention.filter((p) => p.record_uuid === rec)).toMatchObject([
      { op: 'value', field_uuid: TEXT },
    ]);
  }, 90_000);
});
