import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { SYNTH } from '../../bench/synthetic.js';
import { ftsQuery } from '../../electron/service/domain/search/searchIndex.js';
import { startSyntheticService, type TestService } from '../support/service.js';

// The search box's syntax (domain/search/searchSyntax.ts) over real HTTP: phrases (quoted, or
// words joined by punctuation), `-` exclusions, and FTS5's own syntax typed as plain text. Each
// query's expected records come from a hand-written meaning checked word by word against every
// record's shown words (read back through GET), not from the parser under test.

const N = 30;
const FIELD = SYNTH.field('Medium Text');
// Every seeded value starts its phrases with a "zq" word and ends in "zqend", which no phrase
// below holds: a phrase cannot run across into another field's words, here or in the index.
const SEEDED = [
  'zqcsv-1 zqend',
  'zqcsv-10 zqend',
  'zqcsv 2 1 zqend',
  'zqcsv.txt 1 zqend',
  'zqolivine zqbasalt zqquartz zqend',
  'zqbasalt zqolivine zqquartz zqclay zqend',
  'zqquartz zqclay zqrich zqend',
  'zqquartz zqclayey zqend',
  'zqquartz near zqclay or not and zqend',
  'zqs-000123 zq2-theta zqend',
  'zqolivine zqbasaltic zqend',
  'zqquartz(zqstar)* zqend',
];

let t: TestService;
let bodies: { uuid: string; tokens: string[] }[];

const tokens = (s: string) =>
  s
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

function shownWords(r: OdrRecord): string[] {
  const out: string[] = [r.record_uuid, String(r.internal_id)];
  for (const f of r.fields) {
    if (typeof f.value === 'string' || typeof f.value === 'number') out.push(String(f.value));
    for (const v of f.values ?? []) out.push(v.name);
    for (const v of f.tags ?? []) out.push(v.name);
    for (const v of f.files ?? []) out.push(v.original_name);
  }
  for (const c of r.records) out.push(...shownWords(c));
  return out;
}

beforeAll(async () => {
  t = await startSyntheticService(N);
  for (const [i, v] of SEEDED.entries()) await t.admin.setValue(SYNTH.record(i), FIELD, v);
  const all = (await t.admin.request<{ records: OdrRecord[] }>('GET', `/dataset/${SYNTH.dataset}/1000/0`)).records;
  bodies = all.map((r) => ({ uuid: r.record_uuid, tokens: shownWords(r).flatMap(tokens) }));
}, 60_000);
afterAll(() => t.close());

/** A phrase: its words adjacent and in order; `prefix`: the last one may be a word's beginning. */
type Phrase = { words: string; prefix?: boolean };
const has = (ts: string[], { words, prefix }: Phrase) => {
  const ws = tokens(words);
  return ts.some((_, k) => ws.every((w, j) => (j === ws.length - 1 && prefix ? (ts[k + j] ?? '').startsWith(w) : ts[k + j] === w)));
};
const expected = (include: Phrase[], exclude: Phrase[] = []) =>
  bodies
    .filter((b) => include.every((p) => has(b.tokens, p)) && !exclude.some((p) => has(b.tokens, p)))
    .map((b) => b.uuid)
    .sort();

async function search(
  q: string,
): Promise<{ status: number; body: { total?: number; uuids?: string[]; error?: { code: number; message: string } } }> {
  const res = await fetch(`${t.host.url}/local/datasets/${SYNTH.dataset}/record-uuids?q=${encodeURIComponent(q)}`, {
    headers: { Authorization: `Bearer ${t.admin.token}` },
  });
  return { status: res.status, body: (await res.json()) as never };
}
async function found(q: string): Promise<string[]> {
  const { status, body } = await search(q);
  expect(status, `${q}: ${JSON.stringify(body)}`).toBe(200);
  return body.uuids!.slice().sort();
}

const P = (words: string): Phrase => ({ words, prefix: true });
const W = (words: string): Phrase => ({ words });

const CASES: [string, Phrase[], Phrase[]?][] = [
  // Words joined by punctuation: a phrase, the last piece still a prefix while typing.
  ['zqcsv-1', [P('zqcsv 1')]],
  ['ZQCSV-1', [P('zqcsv 1')]],
  ['zqs-000123', [P('zqs 000123')]],
  ['zq2-theta', [P('zq2 theta')]],
  // Quoted: whole words, adjacent, in order.
  ['"zqcsv-1"', [W('zqcsv 1')]],
  ['"zqolivine zqbasalt"', [W('zqolivine zqbasalt')]],
  ['zqbasalt zqolivine', [P('zqbasalt'), P('zqolivine')]],
  // A quote left open: still typing, the last word a prefix.
  ['"zqolivine zqbas', [P('zqolivine zqbas')]],
  // Exclusions: whole words or phrases.
  ['zqquartz -zqclay', [P('zqquartz')], [W('zqclay')]],
  ['zqquartz -"zqclay zqrich"', [P('zqquartz')], [W('zqclay zqrich')]],
  ['zqquartz -zqclay -zqolivine', [P('zqquartz')], [W('zqclay'), W('zqolivine')]],
  ['-zqclay zqquartz', [P('zqquartz')], [W('zqclay')]],
  ['zqcsv -zqcsv-1', [P('zqcsv')], [W('zqcsv 1')]],
  // A lone minus, a stray quote: text, separating nothing from nothing.
  ['zqquartz - zqclay', [P('zqquartz'), P('zqclay')]],
  ['zqquartz -', [P('zqquartz')]],
  ['zqquartz "', [P('zqquartz')]],
  ['zqquartz -*', [P('zqquartz')]],
  ['zqquartz ""', [P('zqquartz')]],
  // FTS5's syntax typed as text.
  ['zqquartz*', [P('zqquartz')]],
  ['^zqquartz', [P('zqquartz')]],
  ['(zqquartz)', [P('zqquartz')]],
  ['zqquartz)', [P('zqquartz')]],
  ['body:zqquartz', [P('body zqquartz')]],
  ['zqquartz(zqstar', [P('zqquartz zqstar')]],
  ['zqquartz NEAR zqclay', [P('zqquartz'), P('near'), P('zqclay')]],
  ['NEAR(zqquartz zqclay)', [P('near zqquartz'), P('zqclay')]],
  ['zqquartz OR zqclay', [P('zqquartz'), P('or'), P('zqclay')]],
  ['zqquartz AND NOT zqclay', [P('zqquartz'), P('and'), P('not'), P('zqclay')]],
  ['zqquartz NOT', [P('zqquartz'), P('not')]],
  ['zqquartz + zqclay', [P('zqquartz'), P('zqclay')]],
];

describe('search syntax over HTTP', () => {
  it.each(CASES)('%s', async (q, include, exclude) => {
    const want = expected(include, exclude);
    expect(await found(q)).toEqual(want);
  });

  it('the seeded words are where the cases expect them (the oracle is not empty)', () => {
    expect(expected([P('zqcsv 1')])).toHaveLength(2);
    expect(expected([W('zqcsv 1')])).toHaveLength(1);
    expect(expected([P('zqquartz')], [W('zqclay')])).toHaveLength(3);
    // Synthetic records say "near" too: NEAR typed as a word finds them.
    expect(expected([P('zqquartz'), P('near'), P('zqclay')])).toHaveLength(4);
  });

  it('a search of nothing to find is no search: every record', async () => {
    for (const q of ['-', '"', '""', '- -', '*', '-"', 'NEAR(', ':']) {
      const { status, body } = await search(q);
      expect(status, q).toBe(200);
      // "NEAR(" and the rest hold words only when they do: NEAR is a word, the rest are not.
      if (q === 'NEAR(') expect(body.uuids!.sort()).toEqual(expected([P('near')]));
      else expect(body.total, q).toBe(N);
    }
  });

  it('a search that only excludes is a 400 naming what it excludes; nothing changes', async () => {
    for (const [q, shown] of [
      ['-zqclay', '-zqclay'],
      ['-"zqclay zqrich"', '-"zqclay zqrich"'],
      ['--zqclay', '-zqclay'],
      ['-zqcsv-1 -zqclay', '-zqcsv-1 -zqclay'],
    ]) {
      const { status, body } = await search(q!);
      expect(status, q).toBe(400);
      expect(body.error!.message).toContain('A search needs a word to find');
      expect(body.error!.message).toContain(shown);
    }
    expect(await found('zqquartz')).toEqual(expected([P('zqquartz')]));
  });

  it('the expansion of a phrase last piece follows new terms (kept expansions stay correct)', async () => {
    const d = t.service.domain.search;
    await t.admin.setValue(SYNTH.record(20), FIELD, 'zqlot-zqa1 zqend');
    expect(d.matchQuery('zqlot-zqa')).toBe('"zqlot zqa1"');
    await t.admin.setValue(SYNTH.record(21), FIELD, 'zqlot-zqa2 zqend');
    expect(d.matchQuery('zqlot-zqa')).toBe('("zqlot zqa1" OR "zqlot zqa2")');
    expect(await found('zqlot-zqa')).toHaveLength(2);
    // "1" stands for more than 16 indexed terms (ids, numbers): it stays a prefix.
    expect(d.matchQuery('zqcsv-1')).toBe('"zqcsv 1"*');
    // The exact forms need no expansion; the reference query leaves every prefix to FTS5.
    expect(d.matchQuery('"zqcsv-1" -zqclay')).toBe('("zqcsv 1") NOT ("zqclay")');
    expect(ftsQuery('zqlot-zqa -zqclay')).toBe('("zqlot zqa"*) NOT ("zqclay")');
    await t.admin.setValue(SYNTH.record(20), FIELD, 'plain zqend');
    expect(d.matchQuery('zqlot-zqa')).toBe('"zqlot zqa2"');
    expect(await found('zqlot-zqa')).toEqual([SYNTH.record(21)]);
  });
});

describe('the same syntax in the ODR search routes (a dataset key\'s "gen")', () => {
  const url = (gen: string) =>
    `${t.host.url}/api/v4/dataset/search/${Buffer.from(JSON.stringify({ dt_id: '901', gen })).toString('base64url')}/0/0/0`;
  const get = async (gen: string) => {
    const res = await fetch(url(gen), { headers: { Authorization: `Bearer ${t.admin.token}` } });
    return { status: res.status, body: (await res.json()) as { records?: OdrRecord[]; error?: { message: string } } };
  };

  it('phrases, exclusions and FTS5 syntax as text', async () => {
    for (const [q, include, exclude] of CASES.filter(([q]) => ['"zqcsv-1"', 'zqquartz -zqclay', 'NEAR(zqquartz zqclay)'].includes(q))) {
      const { status, body } = await get(q);
      expect(status, q).toBe(200);
      expect(body.records!.map((r) => r.record_uuid).sort(), q).toEqual(expected(include, exclude));
    }
    const only = await get('-zqclay');
    expect(only.status).toBe(400);
    expect(only.body.error!.message).toContain('A search needs a word to find');
  });
});
