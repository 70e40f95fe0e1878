import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { importRecordStream, importTemplate } from '../../electron/service/domain/import/importFile.js';
import { syntheticRecord, syntheticTemplate } from '../../electron/service/domain/sample/synthetic.js';
import { startService, type TestService } from '../support/service.js';

// Imported field instances whose author is their record's store it as '' (store/rows.ts
// valueColumns): every read must still show each instance's own author, and a later edit
// by another user must show that user.

let t: TestService;
beforeAll(async () => {
  t = await startService();
  importTemplate(t.service.domain, t.service.domain.users.firstSuperUser()!, syntheticTemplate(), {});
});
afterAll(() => t.close());

type Entry = { field_uuid: string; _field_metadata: { _create_auth?: string }; value?: unknown };

describe('field instance authors imported compactly', () => {
  it('reads back every instance author as exported, same as the record or not', async () => {
    const rec = syntheticRecord(7) as { fields: Entry[]; records: { fields: Entry[] }[] };
    const other = rec.fields.find((f) => f.field_uuid === SYNTH.field('Integer'))!;
    other._field_metadata._create_auth = 'Someone Else';
    async function* one(): AsyncGenerator<unknown> {
      yield rec;
    }
    await importRecordStream(t.service.domain, t.service.domain.users.firstSuperUser()!, one(), () => 0);
    const db = t.service.ctx.db;
    const stored = db
      .prepare(
        'SELECT COUNT(*) FROM field_values v JOIN records r ON r.rid = v.record_rid WHERE r.top_rid = (SELECT rid FROM records WHERE uuid = ?) AND v.create_auth = ?',
      )
      .pluck();
    expect(stored.get(SYNTH.record(7), '')).toBeGreaterThan(10);
    expect(stored.get(SYNTH.record(7), 'Someone Else')).toBe(1);

    const read = (await t.admin.record(SYNTH.record(7))) as unknown as { fields: Entry[]; records: { fields: Entry[] }[] };
    const authors = (fs: Entry[]) => Object.fromEntries(fs.map((f) => [f.field_uuid, f._field_metadata._create_auth]));
    expect(authors(read.fields)).toEqual(authors(rec.fields));
    expect(authors(read.fields)[SYNTH.field('Integer')]).toBe('Someone Else');
    expect(authors(read.fields)[SYNTH.field('Decimal')]).toBe('Synthetic Generator');
    expect(read.records.map((c) => authors(c.fields))).toEqual(rec.records.map((c) => authors(c.fields)));
  });

  it('an edit by another user shows that user as the instance author', async () => {
    const res = await fetch(`${t.api}/record/${SYNTH.record(7)}/${SYNTH.field('Decimal')}/value`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ value: '2.5' }),
    });
    expect(res.status).toBe(200);
    const read = (await t.admin.record(SYNTH.record(7))) as unknown as { fields: Entry[] };
    const dec = read.fields.find((f) => f.field_uuid === SYNTH.field('Decimal'))!;
    expect(dec.value).toBe('2.5');
    expect(dec._field_metadata._create_auth).not.toBe('Synthetic Generator');
    expect(dec._field_metadata._create_auth).not.toBe('');
  });
});
