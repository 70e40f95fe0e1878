import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { importRecordStream, importTemplate } from '../../electron/service/domain/import/importFile.js';
import { syntheticRecords } from '../../electron/service/domain/sample/createSample.js';
import { syntheticRecord, syntheticTemplate } from '../../electron/service/domain/sample/synthetic.js';
import { startService, type TestService } from '../support/service.js';

// The importer reads a synchronous source (the sample generator) inside its transactions and
// writes each record tree's values and selections with multi-row INSERTs. Neither may change
// what is stored: the same records through an async source (a file's parser) in other batch
// sizes store the same rows, and a tree larger than one multi-row statement keeps every value.

const started: TestService[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.close();
});

const TABLES = ['records', 'field_values', 'option_selections', 'tag_selections', 'files', 'datafields', 'radio_options', 'tags'];

async function imported(source: Iterable<unknown> | AsyncIterable<unknown>, batchSize: number): Promise<{ hash: string; t: TestService }> {
  const t = await startService();
  started.push(t);
  const d = t.service.domain;
  importTemplate(d, d.users.firstSuperUser()!, syntheticTemplate(), {});
  await importRecordStream(d, d.users.firstSuperUser()!, source, () => 0, { batchSize });
  const h = createHash('sha256');
  for (const table of TABLES)
    for (const row of t.service.ctx.db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).raw().iterate()) h.update(JSON.stringify(row));
  return { hash: h.digest('hex'), t };
}

async function* asynchronously<T>(items: Iterable<T>): AsyncGenerator<T> {
  for (const x of items) yield x;
}

describe('record import sources and batches', () => {
  it('a synchronous and an async source in different batch sizes store the same rows', async () => {
    const sync = await imported(syntheticRecords(230), 1000);
    const stepped = await imported(syntheticRecords(230), 7);
    const viaAsync = await imported(asynchronously(syntheticRecords(230)), 50);
    expect(stepped.hash).toBe(sync.hash);
    expect(viaAsync.hash).toBe(sync.hash);
    const count = (t: TestService, table: string) => t.service.ctx.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
    expect(count(sync.t, 'records')).toBeGreaterThan(230); // children too
    expect(count(sync.t, 'field_values')).toBeGreaterThan(230 * 10);
  });

  it('a tree with more values than one multi-row statement holds keeps every one', async () => {
    type Rec = { record_uuid: string; fields: unknown[]; records: Rec[] };
    const withChildren = Array.from({ length: 20 }, (_, i) => syntheticRecord(i) as Rec).find((r) => r.records.length > 0)!;
    const child = withChildren.records[0]!;
    withChildren.records = Array.from({ length: 60 }, (_, k) => ({
      ...child,
      record_uuid: `${child.record_uuid.slice(0, 22)}x${String(k).padStart(5, '0')}`,
    }));
    const { t } = await imported([withChildren], 1000);
    const db = t.service.ctx.db;
    const stored = db
      .prepare(
        'SELECT COUNT(*) FROM field_values v JOIN records r ON r.rid = v.record_rid WHERE r.top_rid = (SELECT rid FROM records WHERE uuid = ?)',
      )
      .pluck()
      .get(withChildren.record_uuid) as number;
    expect(withChildren.fields.length + 60 * child.fields.length).toBeGreaterThan(128);
    expect(stored).toBe(withChildren.fields.length + 60 * child.fields.length);
  });

  it('a batch that fails is rolled back whole, and the error counts only what the committed batches kept', async () => {
    // Batches of 2: records 0-3 commit in two batches; the third (record 4 and a broken one) fails.
    const source = () => [...syntheticRecords(5), 42];
    for (const from of [source, () => asynchronously(source())]) {
      const t = await startService();
      started.push(t);
      const d = t.service.domain;
      importTemplate(d, d.users.firstSuperUser()!, syntheticTemplate(), {});
      await expect(importRecordStream(d, d.users.firstSuperUser()!, from(), () => 0, { batchSize: 2 })).rejects.toThrow(
        /\(4 imported, 0 already present\)$/,
      );
      const tops = t.service.ctx.db.prepare('SELECT COUNT(*) FROM records WHERE parent_rid IS NULL').pluck().get() as number;
      expect(tops).toBe(4);
      // Again: the four stored ones are skipped by uuid, record 4 goes in, the broken one stops it.
      await expect(importRecordStream(d, d.users.firstSuperUser()!, from(), () => 0, { batchSize: 2 })).rejects.toThrow(
        /\(0 imported, 4 already present\)$/,
      );
    }
  });
});
