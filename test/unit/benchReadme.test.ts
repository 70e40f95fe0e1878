import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { END, START, resultTables, writeReadme, type RunInfo } from '../../bench/readme.js';
import type { Row } from '../../bench/util.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const info: RunInfo = {
  at: '2026-11-23T19:00:00.000Z',
  minutes: 42.4,
  node: 'v20.20.2',
  cpus: 2,
  loads: [0.4, 1.2],
  scales: [100_000, 1_000_000],
  sections: ['core'],
};
const rows: Row[] = [
  { section: 'core', scale: 100_000, name: 'import rate', value: 4000, unit: 'records/s' },
  { section: 'core', scale: 1_000_000, name: 'import rate', value: 3500, unit: 'records/s' },
  { section: 'core', scale: 100_000, name: 'full-text search p50', value: 12, unit: 'ms' },
  { section: 'core', scale: 1_000_000, name: 'full-text search p50', value: 61, unit: 'ms', target: '≤ 50 ms', pass: false },
  {
    section: 'http',
    name: 'GET /dataset/record | synthetic',
    value: 9000,
    unit: 'req/s',
    target: '≥ 50 % of bare',
    pass: true,
    note: '71 % of bare',
  },
];

describe('bench --readme', () => {
  it('puts each scale in its column, with the target and PASS/MISS per figure', () => {
    const t = resultTables(info, rows);
    expect(t).toContain('load average 0.4–1.2');
    expect(t).toContain('| Figure | 100k | 1M | Target | Result |');
    expect(t).toContain('| import rate | 4,000 records/s | 3,500 records/s |  |  |');
    expect(t).toContain('| full-text search p50 | 12 ms | 61 ms | ≤ 50 ms | **MISS** at 1M |');
    expect(t).toContain('| http | GET /dataset/record \\| synthetic | 9,000 req/s | ≥ 50 % of bare | PASS | 71 % of bare |');
  });

  it('replaces only what lies between the markers, and refuses a file without them', () => {
    const file = path.join(dir, 'README.md');
    writeFileSync(file, `# x\n\nbefore\n${START}\nold figures\n${END}\nafter\n`);
    writeReadme(file, info, rows);
    writeReadme(file, info, rows); // twice: still one table
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('# x\n\nbefore\n')).toBe(true);
    expect(text.endsWith(`${END}\nafter\n`)).toBe(true);
    expect(text).not.toContain('old figures');
    expect(text.split('| Figure | 100k').length).toBe(2);
    writeFileSync(file, '# no markers\n');
    expect(() => writeReadme(file, info, rows)).toThrow(/markers/);
  });
});
