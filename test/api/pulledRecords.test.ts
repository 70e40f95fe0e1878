import { afterAll, beforeAll, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { importRecordStream, importTemplate } from '../../electron/service/domain/import/importFile.js';
import { syntheticRecords } from '../../electron/service/domain/sample/createSample.js';
import { syntheticTemplate } from '../../electron/service/domain/sample/synthetic.js';
import { pulledRecordStore } from '../../electron/service/store/pulledRecords.js';
import { startService, type TestService } from '../support/service.js';

// A record overwritten in place by a server copy or a replace import (store/pulledRecords.ts)
// keeps the values under removed fields. Their author, stored as '' when it is the record's
// (rows.ts valueColumns), must stay who wrote them when the record's author changes.

let t: TestService;
beforeAll(async () => {
  t = await startService();
  const d = t.service.domain;
  importTemplate(d, d.users.firstSuperUser()!, syntheticTemplate(), {});
  await importRecordStream(d, d.users.firstSuperUser()!, syntheticRecords(2), () => 0);
});
afterAll(() => t.close());

it("a value kept under a removed field keeps its author when the record's author changes", () => {
  const d = t.service.domain;
  const db = t.service.ctx.db;
  const rec = d.store.byUuid(SYNTH.record(1))!;
  const field = db.prepare<[string], number>('SELECT id FROM datafields WHERE uuid = ?').pluck().get(SYNTH.field('Short Text'))!;
  const other = db.prepare<[string], number>('SELECT id FROM datafields WHERE uuid = ?').pluck().get(SYNTH.field('Medium Text'))!;
  const stored = db
    .prepare<[number, number], string>('SELECT create_auth FROM field_values WHERE record_rid = ? AND datafield_id = ?')
    .pluck();
  expect(stored.get(rec.rid, field), "the import stores the record's author as ''").toBe('');
  const author = d.store.getValue(rec.rid, field)!.create_auth;
  expect(author).toBe(rec.create_auth);
  expect(author).not.toBe('Someone Else');

  db.prepare('UPDATE datafields SET removed_at = ? WHERE id = ?').run('2026-01-01 00:00:00', field);
  try {
    pulledRecordStore(db).reset(rec.rid, {
      createDate: rec.create_date,
      updateDate: rec.update_date,
      createAuth: 'Someone Else',
      publicDate: rec.public_date,
    });
  } finally {
    db.prepare('UPDATE datafields SET removed_at = NULL WHERE id = ?').run(field);
  }
  expect(d.store.byUuid(SYNTH.record(1))!.create_auth).toBe('Someone Else');
  expect(d.store.getValue(rec.rid, field)?.create_auth, 'kept value, its author unchanged').toBe(author);
  expect(d.store.getValue(rec.rid, other), 'values under listed fields are cleared').toBeUndefined();
});
