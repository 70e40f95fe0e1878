import { describe, expect, it } from 'vitest';
import { detectDialect, contentLines } from '../../../shared/plugins/delimited.js';
import { parseXY, PatternError } from '../../../shared/plugins/xyPattern.js';
import { parseTable, sortedIndexes } from '../../../shared/plugins/csvTable.js';

const arr = (a: Float64Array) => Array.from(a);

describe('x/y pattern parser', () => {
  it('reads comma CSV with a header and comment lines, naming the columns from the header', () => {
    const p = parseXY('# CheMin RDA pattern\n# sol 61\n2theta,counts\n5.0,10\n5.05,12\n5.1,9\n');
    expect(arr(p.x)).toEqual([5, 5.05, 5.1]);
    expect(arr(p.y)).toEqual([10, 12, 9]);
    expect(p.names).toEqual(['2theta', 'counts']);
    expect(p.dialect).toEqual({ delimiter: ',', decimalComma: false });
  });

  it('reads semicolons with decimal commas (European spreadsheets)', () => {
    const p = parseXY('Winkel;Intensität\n5,00;10,5\n5,05;12,25\r\n5,10;9\r\n');
    expect(p.dialect).toEqual({ delimiter: ';', decimalComma: true });
    expect(arr(p.x)).toEqual([5, 5.05, 5.1]);
    expect(arr(p.y)).toEqual([10.5, 12.25, 9]);
  });

  it('reads whitespace columns with decimal commas and runs of spaces', () => {
    const p = parseXY('  5,00    10,5\n  5,05    12,25\n');
    expect(p.dialect).toEqual({ delimiter: ' ', decimalComma: true });
    expect(arr(p.y)).toEqual([10.5, 12.25]);
  });

  it('reads whitespace and tab separated text with % and ! comments, extra columns and trailing blanks', () => {
    const p = parseXY('% exported\n! instrument XYZ\n5.0\t100\t1   \n5.1\t200\t2\t\n\n\n   \n');
    expect(arr(p.x)).toEqual([5, 5.1]);
    expect(arr(p.y)).toEqual([100, 200]);
    const q = parseXY('5.0   1e3  \n5.1 2.5E+2   \n');
    expect(arr(q.y)).toEqual([1000, 250]);
  });

  it('sorts a descending pattern by x and counts junk lines in the data area', () => {
    const p = parseXY('3,30\n2,20\nEND OF DATA\n1,10\n');
    expect(arr(p.x)).toEqual([1, 2, 3]);
    expect(arr(p.y)).toEqual([10, 20, 30]);
    expect(p.skipped).toBe(1);
  });

  it('says clearly when there is nothing to draw', () => {
    expect(() => parseXY('')).toThrow(PatternError);
    expect(() => parseXY('# only a comment\n\n')).toThrow('The file is empty');
    expect(() => parseXY('Mineral,Abundance\nQuartz,12\n')).toThrow('No two numeric columns');
  });

  it('parses 100,000 rows quickly and exactly', () => {
    const lines = ['# generated', 'x,y'];
    for (let i = 0; i < 100_000; i++) lines.push(`${(5 + i * 0.0005).toFixed(4)},${(i % 997) + 0.5}`);
    const text = lines.join('\n');
    const t0 = performance.now();
    const p = parseXY(text);
    const ms = performance.now() - t0;
    expect(p.x.length).toBe(100_000);
    expect(p.x[99_999]).toBeCloseTo(5 + 99_999 * 0.0005, 4);
    expect(p.y[1000]).toBe((1000 % 997) + 0.5);
    console.log(`parseXY: 100,000 rows in ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(2000);
  });
});

describe('dialect detection', () => {
  it('keeps "1, 2" and "1,2" as two comma cells', () => {
    expect(detectDialect(['1, 2', '3, 4'])).toEqual({ delimiter: ',', decimalComma: false });
    expect(detectDialect(['1,2', '3,4'])).toEqual({ delimiter: ',', decimalComma: false });
  });
  it('drops comment, // and blank lines and a byte-order mark', () => {
    expect(contentLines('\uFEFFa,b\n// note\n\n# c\n1,2  \n')).toEqual(['a,b', '1,2']);
  });
});

describe('CSV table parser', () => {
  it('takes the header from the file, keeps quoted commas, sorts numbers as numbers', () => {
    const t = parseTable('Mineral,Abundance (wt%),Notes\nPlagioclase,40.8,"andesine, An40"\nOlivine,9.3,\nAugite,10.7,x\nAmorphous,27,\n');
    expect(t.namedHeader).toBe(true);
    expect(t.header).toEqual(['Mineral', 'Abundance (wt%)', 'Notes']);
    expect(t.rows[0]).toEqual(['Plagioclase', '40.8', 'andesine, An40']);
    expect(sortedIndexes(t, 1, 'asc').map((i) => t.rows[i]![0])).toEqual(['Olivine', 'Augite', 'Amorphous', 'Plagioclase']);
    expect(sortedIndexes(t, 1, 'desc').map((i) => t.rows[i]![0])).toEqual(['Plagioclase', 'Amorphous', 'Augite', 'Olivine']);
    expect(sortedIndexes(t, 0, 'asc').map((i) => t.rows[i]![0])).toEqual(['Amorphous', 'Augite', 'Olivine', 'Plagioclase']);
    // Blank cells go last either way.
    expect(
      sortedIndexes(t, 2, 'desc')
        .slice(-2)
        .map((i) => t.rows[i]![2]),
    ).toEqual(['', '']);
  });

  it('numbers columns when the file has no header, and reads semicolons with decimal commas', () => {
    const t = parseTable('1;2,5\n3;4,25\n');
    expect(t.namedHeader).toBe(false);
    expect(t.header).toEqual(['Column 1', 'Column 2']);
    expect(sortedIndexes(t, 1, 'desc')).toEqual([1, 0]);
  });

  it('parses 100,000 rows and sorts them', () => {
    const lines = ['id,value'];
    for (let i = 0; i < 100_000; i++) lines.push(`r${i},${(i * 7919) % 100_003}`);
    const t = parseTable(lines.join('\n'));
    expect(t.rows.length).toBe(100_000);
    const order = sortedIndexes(t, 1, 'asc');
    expect(Number(t.rows[order[0]!]![1])).toBe(0);
    expect(Number(t.rows[order[99_999]!]![1])).toBeGreaterThan(Number(t.rows[order[99_998]!]![1]));
  });
});
