import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { seededRandom } from '../../shared/seededRandom.js';
import { matchingRids } from '../support/searchRids.js';
import { searchIndexStore } from '../../electron/service/store/searchIndex.js';
import { ftsQuery } from '../../electron/service/domain/search/searchIndex.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// A word's prefix becomes the indexed terms it stands for, read from the index's 'instance'
// vocabulary one seek per term (migration 020: the 'row' vocabulary read each term's whole
// doclist, 50 ms for a common word at 1M records). The terms must be exactly those indexed now:
// every one, in order, none that a delete or an edit removed, and a prefix past 16 terms stays a prefix.
// A word's expansion is kept while nothing new is indexed, and only then.

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

describe('kept expansions', () => {
  /** How many vocabulary walks `fn` makes (the store's own method, counted on its way through). */
  const walks = (fn: () => void): number => {
    const store = searchIndexStore(t.service.ctx.db);
    const real = store.termsBetween;
    let n = 0;
    store.termsBetween = (...a) => (n++, real(...a));
    try {
      fn();
    } finally {
      store.termsBetween = real;
    }
    return n;
  };

  it('a word is looked up once while nothing is indexed, and again after any write', async () => {
    expect(walks(() => expansion('qkept qkeptother'))).toBe(2);
    expect(walks(() => expansion('QKEPT qkept'))).toBe(0);
    expect(expansion('qkept')).toBe('"qkept"');
    // A write naming none of these words still drops them: the index moved on.
    await set(3, 'unrelated');
    expect(walks(() => expansion('qkept'))).toBe(1);
    await set(4, 'qkeptnew');
    expect(expansion('qkept')).toBe('"qkeptnew"');
    await set(4, 'plain');
    expect(expansion('qkept')).toBe('"qkept"');
  });

  it('every search between random writes finds what the plain prefix query finds', async () => {
    const rids = matchingRids(t.service);
    const rand = seededRandom(17);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    // Words sharing prefixes, so writes add and remove terms that kept prefixes stand for.
    const words = ['qr', 'qra', 'qrab', 'qrb', 'qrba', 'qrabc', 'Qrä', 'qs'];
    const prefixes = ['q', 'qr', 'qra', 'qrab', 'qrb', 'qs', 'qr qra', 'qrabc'];
    let found = 0;
    for (let step = 0; step < 60; step++) {
      if (rand() < 0.4) await set(Math.floor(rand() * 10), `${pick(words)} ${pick(words)}`);
      const input = pick(prefixes);
      // The expansion first: it brings the index up to date, which the plain query does not.
      const got = rids(expansion(input));
      const want = rids(ftsQuery(input));
      expect(got, `step ${step}: ${input}`).toEqual(want);
      found += want.length;
    }
    expect(found).toBeGreaterThan(0);
  });
});
