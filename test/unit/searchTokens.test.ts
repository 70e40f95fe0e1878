import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../electron/service/store/db.js';
import { SEARCH_TOKENIZE, asciiTokens, byteCompare } from '../../electron/service/store/searchTokens.js';
import { seededRandom } from '../../shared/seededRandom.js';
import { tempDir } from '../support/service.js';

// The skip list (store/searchSkips.ts) must see every term an indexed body adds: plain ASCII
// bodies are tokenized in JS, so that tokenizer must agree with FTS5's, token for token, on the
// index's own tokenize string (and on the index as migration 003 built it).

const dir = tempDir('odr-tokens-');
const db = openDatabase(path.join(dir, 'odr.sqlite'));
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});
db.exec(`CREATE VIRTUAL TABLE temp.tok USING fts5(body, content='', tokenize='${SEARCH_TOKENIZE}');
  CREATE VIRTUAL TABLE temp.tok_i USING fts5vocab(temp, tok, 'instance');`);
const ins = db.prepare('INSERT INTO temp.tok (rowid, body) VALUES (1, ?)');
const terms = db.prepare('SELECT term FROM temp.tok_i ORDER BY "offset"').pluck();
const clear = db.prepare("INSERT INTO temp.tok (tok) VALUES ('delete-all')");
const fts5 = (body: string): string[] => {
  ins.run(body);
  const out = terms.all() as string[];
  clear.run();
  return out;
};

describe('plain ASCII tokens', () => {
  it('migration 003 indexes with the shared tokenize string', () => {
    const sql = db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'record_search'").pluck().get() as string;
    expect(sql).toContain(`tokenize='${SEARCH_TOKENIZE}'`);
  });

  it('agree with FTS5 on edge cases', () => {
    const cases = [
      '',
      ' ',
      'Basalt',
      'CSV-1, csv_10; x.y/z',
      "don't stop_me now",
      'a1b2 3.14 -7 1e10 0x1F',
      'tab\tnew\nline\rcarriage',
      '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
      'ABC abc AbC',
      '123abc ABC123 __init__',
      'a'.repeat(40000),
      `${'Q'.repeat(33000)} tail`,
      'uuid 0a1b2c3d-4e5f-6789-abcd-ef0123456789 42',
    ];
    for (const c of cases) expect(asciiTokens(c), JSON.stringify(c.slice(0, 40))).toEqual(fts5(c));
  });

  it('agree with FTS5 on random printable ASCII', () => {
    const rnd = seededRandom(17);
    const alphabet = ' \t\n\rAaZz09_-.,:;\'"!?@#()[]{}<>/\\|~^`$%&*+=';
    for (let i = 0; i < 300; i++) {
      let s = '';
      const n = Math.floor(rnd() * 40);
      for (let k = 0; k < n; k++)
        s += rnd() < 0.5 ? alphabet[Math.floor(rnd() * alphabet.length)] : String.fromCharCode(32 + Math.floor(rnd() * 95));
      expect(asciiTokens(s), JSON.stringify(s)).toEqual(fts5(s));
    }
  });

  it('leave anything else to FTS5', () => {
    for (const c of ['Café', 'Straße', 'λόγος', '東京', 'x\u0001y', 'a\u00a0b', 'x\u000by']) expect(asciiTokens(c)).toBeNull();
  });
});

describe('byteCompare', () => {
  it('orders as SQLite BINARY (UTF-8 bytes)', () => {
    const words = ['a', 'ab', 'b', 'é', 'z', '\uffff', '\ue000', '\u{10000}', '\u{1f600}', 'ß', 'σ', '東', 'a\u{10000}', 'a\uffff', ''];
    const sqlite = db
      .prepare('SELECT value FROM json_each(?) ORDER BY value COLLATE BINARY')
      .pluck()
      .all(JSON.stringify(words)) as string[];
    expect([...words].sort(byteCompare)).toEqual(sqlite);
    expect([...words].sort()).not.toEqual(sqlite);
  });
});
