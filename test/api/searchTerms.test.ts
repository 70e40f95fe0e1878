import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// A word's prefix becomes the indexed terms it stands for, read from the index's 'instance'
// vocabulary one seek per term (migration 020: the 'row' vocabulary read each term's whole
// doclist, 50 ms for a common word at 1M records). The terms must be exactly those indexed now:
// every one, in order, none that a delete or an edit removed, and a prefix past 16 terms stays a prefix.

let t: TestService;
const FIELD = SYNTH.field('Short Text');
beforeAll(async () => {
  t = await startSyntheticService(30);
}, 60_000);
afterAll(() => t.close());

const set = async (i: number, value: string) => t.admin.setValue(SYNTH.record(i), FIELD, value);
const expansion = (word: string) => t.service.domain.search.matchQuery(word);

describe('prefix → indexed terms', () => {
  it('lists every term with the prefix, in order, terms sharing many records and terms of one alike', async () => {
    // "qalpha" in 20 records, the others in one each: a term's own entries must not be stepped through.
    for (let i = 0; i < 20; i++) await set(i, 'qalpha');
    await set(20, 'qalphabet');
    await set(21, 'qalph');
    await set(22, 'qalpine qalphanumeric');
    expect(expansion('qalph')).toBe('("qalph" OR "qalpha" OR "qalphabet" OR "qalphanumeric")');
    expect(expansion('QALPHA')).toBe('("qalpha" OR "qalphabet" OR "qalphanumeric")');
    expect(expansion('qal')).toBe('("qalph" OR "qalpha" OR "qalphabet" OR "qalphanumeric" OR "qalpine")');
    expect(expansion('qalphabet')).toBe('"qalphabet"');
    expect(expansion('qzz')).toBe('"qzz"');
  });

  it('drops a term no record holds any more (edited away or deleted)', async () => {
    await set(20, 'plain');
    await t.admin.deleteRecords([SYNTH.record(21)]);
    expect(expansion('qalph')).toBe('("qalpha" OR "qalphanumeric")');
    const res = await fetch(`${t.host.url}/local/datasets/${SYNTH.dataset}/record-uuids?q=qalph`, {
      headers: { Authorization: `Bearer ${t.admin.token}` },
    });
    const { total } = (await res.json()) as { total: number };
    expect(total).toBe(21);
  });

  it('a prefix standing for more than 16 terms stays a prefix query', async () => {
    for (let i = 0; i < 17; i++) await set(i, `qmany${String.fromCharCode(97 + i)}`);
    expect(expansion('qmany')).toBe('"qmany"*');
    expect(expansion('qmanya')).toBe('"qmanya"');
  });
});
