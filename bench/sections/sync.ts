import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createService } from '../../electron/service/service.js';
import { importFile } from '../../electron/service/domain/import/importFile.js';
import { setValue } from '../../electron/service/domain/records/ops.js';
import { SYNTH, syntheticTemplate, writeSyntheticExport } from '../synthetic.js';
import { PUSH_CONCURRENCY } from '../../electron/service/sync/push.js';
import { fmt, forkTs, freshDir, type BenchContext } from '../util.js';

const ADMIN = { email: 'bench@localhost', password: 'bench-password' };
const PULL_RECORDS = 10_000;
const PUSH_EDITS = 1_000;

/**
 * Issue 5: a first pull of 10k records from a remote service in its own process on loopback,
 * then a push of 1,000 queued value edits (each on its own record, so each is checked against
 * a fresh server copy as a real push is).
 */
export async function syncBench(ctx: BenchContext): Promise<void> {
  const remoteDir = freshDir(ctx, 'data-sync-remote');
  const setup = await createService({ dataDir: remoteDir, admin: ADMIN });
  const admin = setup.domain.users.firstSuperUser()!;
  const tpl = path.join(ctx.work, 'synthetic-template.json');
  writeFileSync(tpl, JSON.stringify(syntheticTemplate()));
  await importFile(setup.domain, admin, tpl);
  const recs = path.join(ctx.work, `synthetic-${PULL_RECORDS}.json`);
  await writeSyntheticExport(recs, PULL_RECORDS);
  await importFile(setup.domain, admin, recs);
  const children = setup.ctx.db.prepare('SELECT COUNT(*) FROM records WHERE parent_rid IS NOT NULL').pluck().get() as number;
  await setup.close();

  const remote = await forkTs('server.ts', [remoteDir]);
  const local = await createService({ dataDir: freshDir(ctx, 'data-sync-local'), admin: ADMIN });
  try {
    const me = local.domain.users.firstSuperUser()!;
    const id = await local.sync.addRemote(`http://127.0.0.1:${remote.port}/api/v4`, ADMIN.email, ADMIN.password);
    let t0 = performance.now();
    const pull = await local.sync.run(id, me, [SYNTH.dataset]);
    const pullMs = performance.now() - t0;
    if (pull.error) throw new Error(`pull failed: ${pull.error}`);
    const got = local.ctx.db.prepare('SELECT COUNT(*) FROM records WHERE parent_rid IS NULL').pluck().get() as number;
    if (got !== PULL_RECORDS) throw new Error(`pulled ${got} of ${PULL_RECORDS} records`);
    const rate = PULL_RECORDS / (pullMs / 1000);
    ctx.add({
      section: 'sync',
      name: `first pull of ${PULL_RECORDS} records from a loopback remote`,
      value: Math.round(rate),
      unit: 'rec/s',
      target: '≥ 2,000 rec/s',
      pass: rate >= 2000,
      note: `${fmt(pullMs / 1000, 1)} s incl. ${children} child records, template, id listing`,
    });

    // Push: the same number of queued edits, first one record at a time, then with several
    // top-level records in flight, in this run (the machine drifts between runs).
    const field = SYNTH.field('Medium Text');
    const pushRate = async (concurrency: number, from: number) => {
      for (let i = from; i < from + PUSH_EDITS; i++) setValue(local.domain, me, SYNTH.record(i), field, `pushed ${i}`);
      const t = performance.now();
      const s = await local.sync.engine(id, me, concurrency).push();
      const ms = performance.now() - t;
      if (s.pushed !== PUSH_EDITS) throw new Error(`pushed ${s.pushed} of ${PUSH_EDITS} at concurrency ${concurrency}`);
      return PUSH_EDITS / (ms / 1000);
    };
    const serial = await pushRate(1, 0);
    const parallel = await pushRate(PUSH_CONCURRENCY, PUSH_EDITS);
    ctx.add({
      section: 'sync',
      name: `push of ${PUSH_EDITS} queued edits, one record at a time`,
      value: Math.round(serial),
      unit: 'ops/s',
      note: 'fresh server copy, write, commit per record',
    });
    ctx.add({
      section: 'sync',
      name: `push of ${PUSH_EDITS} queued edits, ${PUSH_CONCURRENCY} records in flight`,
      value: Math.round(parallel),
      unit: 'ops/s',
      target: '≥ 4× one at a time',
      pass: parallel >= 4 * serial,
      note: `${fmt(parallel / serial, 2)}× the one-at-a-time rate of this run`,
    });

    t0 = performance.now();
    const idle = await local.sync.run(id, me, [SYNTH.dataset]);
    ctx.add({
      section: 'sync',
      name: `sync with nothing to do (${PULL_RECORDS} records known)`,
      value: Math.round(performance.now() - t0),
      unit: 'ms',
      note: `${idle.pulled} pulled, ${idle.pushed} pushed`,
    });
  } finally {
    await local.close();
    await remote.stop();
  }
}
