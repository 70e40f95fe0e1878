import { writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExportFormatError, jsonArrayElements } from '../../electron/service/domain/import/jsonElements.js';
import { tempDir } from '../support/service.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (text: string) => {
  const f = path.join(dir, `f${n++}.json`);
  writeFileSync(f, text);
  return f;
};
const collect = async (f: string, key?: string) => {
  const out: unknown[] = [];
  for await (const x of jsonArrayElements(f, key)) out.push(x);
  return out;
};

describe('jsonArrayElements', () => {
  it('yields the elements of the top-level "records" array, wherever the key sits', async () => {
    const doc = { count: 3, meta: { records: ['not this'] }, records: [{ a: 1 }, { b: '}]"\\' }, { c: [{ d: '{' }] }], after: [1] };
    expect(await collect(file(JSON.stringify(doc, null, 2)))).toEqual(doc.records);
  });

  it('yields the elements of a top-level array', async () => {
    expect(await collect(file('[{"x":1} , {"y":[2]}]'))).toEqual([{ x: 1 }, { y: [2] }]);
  });

  it('reads across 1 MiB chunk boundaries, multi-byte text included', async () => {
    const records = Array.from({ length: 300 }, (_, i) => ({ i, text: `é€😀 "quoted" \\ ${'x'.repeat(9000)}` }));
    expect(await collect(file(JSON.stringify({ records })))).toEqual(records);
  });

  it('a string value named "records" at the top is not the array', async () => {
    await expect(collect(file('{"name":"records","other":[{"a":1}]}'))).rejects.toThrow(ExportFormatError);
  });

  it('a truncated file is an error, after yielding the complete elements', async () => {
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const x of jsonArrayElements(file('{"records":[{"a":1},{"b":'))) seen.push(x);
      })(),
    ).rejects.toThrow(/ends in the middle/);
    expect(seen).toEqual([{ a: 1 }]);
  });

  it('scalars in the array are refused', async () => {
    await expect(collect(file('{"records":[1,2]}'))).rejects.toThrow(/must hold objects/);
  });
});
