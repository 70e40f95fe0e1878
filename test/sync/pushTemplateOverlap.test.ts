import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import type { TestService } from '../support/service.js';
import { attachedPair, type gateProxy, type RemoteProc } from './support.js';

// A push reads the server's templates before it applies any server copy; the first records'
// copies are read during that round trip (behind a lab server's latency it was the one round
// trip not overlapped with the records in flight). Only the reading overlaps: nothing is sent
// before the templates are in, and a template read that fails sends nothing. The remote plays a
// real ODR server here: to one that guards its writes, value writes go without a read at all
// (docs/sync.md §5, test/sync/guardedPush.test.ts).

const TEXT = SYNTH.field('Medium Text');
let remote: RemoteProc;
let local: TestService;
let gate: Awaited<ReturnType<typeof gateProxy>>;
let remoteId: number;

const value = (r: OdrRecord) => r.fields.find((f) => f.field_uuid === TEXT)?.value;
const run = () => local.service.sync.run(remoteId, local.service.domain.users.firstSuperUser()!, [SYNTH.dataset]);
const isTemplateRead = (method: string, path: string) => method === 'GET' && path.endsWith(`/template/${SYNTH.dataset}`);

/** Resolves once the proxy has seen a request matching `re` (bounded: fails after 10 s). */
async function seenRequest(re: RegExp): Promise<void> {
  const end = Date.now() + 10_000;
  while (!gate.seen.some((s) => re.test(s))) {
    if (Date.now() > end) throw new Error(`no request matching ${re} while the template read was held; seen: ${gate.seen.join(', ')}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

attachedPair(
  4,
  (p) => {
    ({ remote, local, remoteId } = p);
    gate = p.gate!;
  },
  { gated: true, realServer: true },
);

describe('a push reads the first server copies while it reads the templates', () => {
  it('the copies are read meanwhile, nothing is written until the templates are in, and a refused template read sends nothing', async () => {
    const recs = [SYNTH.record(1), SYNTH.record(2)];
    const before = await Promise.all(recs.map(async (r) => value(await remote.client.record(r))));
    for (const r of recs) await local.admin.setValue(r, TEXT, `edited ${r}`);
    gate.seen.length = 0;
    const held = gate.hold(isTemplateRead);
    const pass = run();
    await held.reached;
    for (const r of recs) await seenRequest(new RegExp(`^GET .*/dataset/record/${r}$`));
    expect(
      gate.seen.filter((s) => !s.startsWith('GET ')),
      'writes sent before the templates were in',
    ).toEqual([]);
    held.release({ status: 403, message: 'template refused by the test' });
    const s = await pass;
    expect(s.error).toMatch(/template refused by the test/);
    expect(
      gate.seen.filter((x) => !x.startsWith('GET ')),
      'writes sent after a refused template read',
    ).toEqual([]);
    for (const [i, r] of recs.entries()) {
      expect(value(await remote.client.record(r))).toBe(before[i]);
      expect(value(await local.admin.record(r))).toBe(`edited ${r}`);
    }

    // The next pass reads the templates, then sends both edits.
    const next = await run();
    expect(next.error).toBeUndefined();
    expect(next.pushed).toBe(2);
    for (const r of recs) expect(value(await remote.client.record(r))).toBe(`edited ${r}`);
    expect(local.service.sync.conflicts()).toEqual([]);
  });
});
