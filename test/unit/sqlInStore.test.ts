import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';

// SQL lives only in electron/service/store/ (docs/store.md): domain/, api/ and sync/ call
// repositories. This finds SQL anywhere else in the service: statement calls on a connection and
// SQL text in string literals. (Only store/ may import better-sqlite3: .dependency-cruiser.cjs.)

const SERVICE = path.join(ROOT, 'electron', 'service');
const STORE = path.join(SERVICE, 'store');

/** Connection calls, and SQL keywords opening a statement inside a string or template literal. */
const PATTERNS: [string, RegExp][] = [
  ['.prepare(', /\.prepare\s*[<(]/],
  ['.exec(<sql>)', /\.exec\(\s*[`'"]/],
  ['.transaction(', /\.transaction\s*\(/],
  ['.pragma(', /\.pragma\s*\(/],
  [
    'SQL in a string',
    /[`'"]\s*(SELECT\s+(DISTINCT\s+)?[\w*.(]+[\s\S]{0,200}?\bFROM\b|INSERT\s+(OR\s+\w+\s+)?INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b|CREATE\s+(TABLE|INDEX|VIEW|TRIGGER)\b|WITH\s+RECURSIVE\b|PRAGMA\s+\w+)/,
  ],
];

function sqlFindings(source: string): string[] {
  const found: string[] = [];
  source.split('\n').forEach((line, i) => {
    for (const [name, re] of PATTERNS) if (re.test(line)) found.push(`${i + 1}: ${name}: ${line.trim().slice(0, 100)}`);
  });
  // Statements split over lines: the keyword opens a literal on one line, FROM follows later.
  const multi = /[`'"]\s*\n?\s*(SELECT\s[\s\S]{0,300}?\bFROM\b|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)/g;
  for (const m of source.matchAll(multi)) {
    const line = source.slice(0, m.index).split('\n').length;
    if (!found.some((f) => f.startsWith(`${line}:`))) found.push(`${line}: SQL in a string: ${m[0].trim().slice(0, 100)}`);
  }
  return found;
}

function serviceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return p === STORE ? [] : serviceFiles(p);
    return /\.(ts|js|mjs|cjs)$/.test(e.name) ? [p] : [];
  });
}

describe('SQL only in store/', () => {
  it('the detector finds each kind of SQL and passes ordinary code', () => {
    const bad = [
      "db.prepare('SELECT 1').get();",
      'ctx.db.exec(`DELETE FROM jobs`);',
      'const t = db.transaction(() => 1);',
      "db.pragma('journal_mode = WAL');",
      "const sql = 'SELECT id, name FROM users WHERE id = ?';",
      'const q = `\n  INSERT INTO files (a) VALUES (?)`;',
      "run('UPDATE records SET public_date = ? WHERE rid = ?');",
      'const s = `SELECT r.rid\n   FROM records r`;',
    ];
    for (const b of bad) expect(sqlFindings(b), b).not.toEqual([]);
    const fine = [
      'const m = /^Bearer\\s+(\\S+)$/i.exec(header);',
      "throw badRequest('Select a dataset from the list');",
      '// SELECT-like wording in a comment about choosing from a list',
      "const label = 'Delete from trash';",
    ];
    for (const f of fine) expect(sqlFindings(f), f).toEqual([]);
  });

  it('no file of the service outside store/ holds SQL', () => {
    const files = serviceFiles(SERVICE);
    expect(files.length).toBeGreaterThan(50);
    const findings = files.flatMap((f) => sqlFindings(readFileSync(f, 'utf8')).map((x) => `${path.relative(ROOT, f)}:${x}`));
    expect(findings).toEqual([]);
  });
});
